/// <reference path="./node-nacha.d.ts" />
import nacha from '@midlandsbank/node-nacha';
import type { BankOutcome } from '../sepa/entities.ts';

/**
 * The bank (the ODFI) that collects ACH debits, behind one interface so a real one can plug in. Settlement
 * (sepa/settlement.ts) hands it one NACHA file per run, written and checked by ach/nacha.ts, and records its
 * answer per entry; an entry's Individual Identification Number is the debit's id, by which a bank that is
 * sent a file again answers the same and collects once.
 */
export interface AchBank {
  submit(file: string): Promise<Map<string, BankOutcome>>;
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
 * docs/ach.md, Sandbox: one account number fails (returned before settlement, as R03: no account), one is
 * collected and then returned (R01: insufficient funds), every other is collected.
 */
export const sandboxAchAccounts = { fails: '9900000001', returned: '9900000002' } as const;

const scenarios: Readonly<Record<string, BankOutcome>> = {
  [sandboxAchAccounts.fails]: 'FAIL',
  [sandboxAchAccounts.returned]: 'SUCCESS_THEN_RETURN',
};

/** Reads the file as a bank would and answers each entry by its account number. */
export const sandboxAchBank: AchBank = {
  submit: async (file) => {
    const { batches } = nacha.from(file).data;
    return new Map(
      batches.flatMap((batch) =>
        batch.entries.map((entry) => [
          entry.identificationNumber.trim(),
          scenarios[entry.dfiAccount.trim()] ?? 'SUCCESS',
        ]),
      ),
    );
  },
};
