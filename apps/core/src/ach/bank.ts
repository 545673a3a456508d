/// <reference path="./node-nacha.d.ts" />
import nacha from '@midlandsbank/node-nacha';
import type { BankAnswer } from '../sepa/entities.ts';

/**
 * The bank (the ODFI) that collects ACH debits, behind one interface so a real one can plug in. Settlement
 * (sepa/settlement.ts) hands it one NACHA file per run, written and checked by ach/nacha.ts, and records its
 * answer per entry; an entry's Individual Identification Number is the debit's id, by which a bank that is
 * sent a file again answers the same and collects once.
 */
export interface AchBank {
  submit(file: string): Promise<Map<string, BankAnswer>>;
}

/** Who originates the files: the ODFI's routing number, and the originator's name and company id. */
export interface AchOriginator {
  odfiRoutingNumber: string;
  name: string;
  companyId: string;
}

export interface AchSettings {
  bank: AchBank;
  originator: AchOriginator;
}

/** The sandbox's originator (the first routing number is the Federal Reserve's, valid by the ABA check). */
export const sandboxOriginator: AchOriginator = {
  odfiRoutingNumber: '011000015',
  name: 'PAYWIRE',
  companyId: '1000000001',
};

/**
 * docs/ach.md, Sandbox: one account number fails (returned before settlement, R03: no account), one is
 * collected and then returned (R01: insufficient funds). Beyond them, `99000001` and a code's two digits fails
 * with that code, `99000002` and the digits is collected and then returned with it; every other is collected.
 */
export const sandboxAchAccounts = { fails: '9900000001', returned: '9900000002' } as const;

const sandboxReturnCodes = ['R01', 'R02', 'R03', 'R04', 'R08', 'R10', 'R16', 'R20', 'R29'];

/** The sandbox account whose debit ends with the return code: failed before settlement, or returned after. */
export const sandboxAchAccount = (returnCode: string, returned: boolean) =>
  `9900000${returned ? 2 : 1}${returnCode.slice(1)}`;

const scenarios: ReadonlyMap<string, BankAnswer> = new Map([
  [sandboxAchAccounts.fails, { outcome: 'FAIL', returnCode: 'R03' }],
  [sandboxAchAccounts.returned, { outcome: 'SUCCESS_THEN_RETURN', returnCode: 'R01' }],
  ...sandboxReturnCodes.flatMap((returnCode): [string, BankAnswer][] => [
    [sandboxAchAccount(returnCode, false), { outcome: 'FAIL', returnCode }],
    [sandboxAchAccount(returnCode, true), { outcome: 'SUCCESS_THEN_RETURN', returnCode }],
  ]),
]);

/** Reads the file as a bank would and answers each entry by its account number. */
export const sandboxAchBank: AchBank = {
  submit: async (file) => {
    const { batches } = nacha.from(file).data;
    return new Map(
      batches.flatMap((batch) =>
        batch.entries.map((entry) => [
          entry.identificationNumber.trim(),
          scenarios.get(entry.dfiAccount.trim()) ?? { outcome: 'SUCCESS' },
        ]),
      ),
    );
  },
};
