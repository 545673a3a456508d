/// <reference path="./node-nacha.d.ts" />
import nacha, { type NachaData } from '@midlandsbank/node-nacha';
import type { EcpAccountType } from '@paywire/contracts';
import type { AchOriginator } from './bank.ts';

/** A debit as a NACHA entry carries it; `reference` (the debit's id) is its Individual Identification Number. */
export interface AchEntry {
  reference: string;
  merchantId: number;
  routingNumber: string;
  accountNumber: string;
  accountType: EcpAccountType;
  amountMinor: number;
  /** The payer: the entry's Individual Name. */
  name: string;
  /** The merchant's day the entry takes effect (the run's time by the merchant's clock). */
  effectiveOn: Date;
}

const yymmdd = (date: Date) => date.toISOString().slice(2, 10).replaceAll('-', '');

/** A NACHA field holds upper-case letters, digits and spaces only, within its width. */
const field = (text: string, width: number) =>
  text
    .toUpperCase()
    .replace(/[^A-Z0-9 ]/g, ' ')
    .slice(0, width);

/**
 * One run's file: a WEB batch per merchant (debits the shopper authorized online), each entry a debit of a
 * checking or savings account, traced by the ODFI's first eight digits and the entry's sequence in the file.
 * Read back before it leaves (checkNachaFile): a file that does not say what was meant is never sent.
 */
export function nachaFile(originator: AchOriginator, entries: AchEntry[]): string {
  const odfi = originator.odfiRoutingNumber.slice(0, 8);
  const byMerchant = Map.groupBy(entries, (entry) => entry.merchantId);
  let builder = nacha.create({
    from: { name: field(originator.name, 23), fein: originator.companyId },
    for: { name: 'ODFI', routing: originator.odfiRoutingNumber },
  });
  let sequence = 0;
  for (const [merchantId, batch] of byMerchant) {
    builder = builder.web({
      effectiveDate: yymmdd(batch[0]?.effectiveOn ?? new Date()),
      description: 'PAYMENT',
      companyName: field(`${originator.name} ${merchantId}`, 16),
      companyId: originator.companyId,
      originatingDFIIdentification: odfi,
    });
    for (const entry of batch) {
      sequence += 1;
      builder = builder.debit({
        name: field(entry.name, 22),
        account: { num: entry.accountNumber, type: entry.accountType.endsWith('SAVINGS') ? 'S' : 'C' },
        routing: entry.routingNumber,
        amount: entry.amountMinor,
        identificationNumber: entry.reference,
        traceNumber: `${odfi}${String(sequence).padStart(7, '0')}`,
        paymentTypeCode: 'S',
      });
    }
  }
  const file = nacha.from(builder).to('ach');
  checkNachaFile(file, entries);
  return file;
}

/** The entry hash: the sum of the entries' RDFI identifications (routing numbers without check digit), last ten digits. */
const entryHash = (routingNumbers: string[]) =>
  routingNumbers.reduce((sum, routing) => sum + Number(routing.slice(0, 8)), 0) % 10_000_000_000;

const sum = (amounts: number[]) => amounts.reduce((total, amount) => total + amount, 0);

/**
 * Reads the file back with the library and checks it says what was meant: 94-character records in blocks of
 * ten, a batch per merchant, every entry once with its account, routing number and amount, and the batch and
 * file controls' counts, entry hashes and debit totals. Throws on the first difference, naming no account.
 */
export function checkNachaFile(file: string, entries: AchEntry[]): NachaData {
  const fail = (what: string): never => {
    throw new Error(`the NACHA file does not read back as written: ${what}`);
  };
  const records = file.split('\n').filter((line) => line.length > 0);
  if (records.some((record) => record.length !== 94)) fail('a record is not 94 characters');
  if (records.length % 10 !== 0) fail('the records do not fill whole blocks of ten');
  const data = nacha.from(file).data;
  const merchants = new Set(entries.map((entry) => entry.merchantId));
  const control = data.file.footer;
  if (data.batches.length !== merchants.size || control.batchCount !== merchants.size) fail('batch count');
  const expected = new Map(entries.map((entry) => [entry.reference, entry]));
  const seen = new Set<string>();
  for (const batch of data.batches) {
    const routings: string[] = [];
    for (const record of batch.entries) {
      const reference = record.identificationNumber.trim();
      const entry = expected.get(reference);
      if (!entry || seen.has(reference)) return fail(`entry ${reference} is unexpected or repeated`);
      seen.add(reference);
      const routing = `${String(record.receivingDFIIdentification).padStart(8, '0')}${record.checkDigit}`;
      if (routing !== entry.routingNumber) fail(`entry ${reference}: routing number`);
      if (record.dfiAccount.trim() !== entry.accountNumber) fail(`entry ${reference}: account number`);
      if (Number(record.amount) !== entry.amountMinor) fail(`entry ${reference}: amount`);
      if (!['27', '37'].includes(String(record.transactionCode))) fail(`entry ${reference}: not a debit`);
      routings.push(routing);
    }
    const footer = batch.footer;
    if (footer.entryAndAddendaCount !== batch.entries.length) fail('a batch control entry count');
    if (footer.entryHash !== entryHash(routings)) fail('a batch control entry hash');
    if (footer.totalDebit !== sum(batch.entries.map((record) => Number(record.amount))))
      fail('a batch debit total');
    if (footer.totalCredit !== 0) fail('a batch credit total');
  }
  if (seen.size !== entries.length || control.entryAndAddendaCount !== entries.length) fail('entry count');
  if (control.entryHash !== entryHash(entries.map((entry) => entry.routingNumber))) fail('file entry hash');
  if (control.totalDebit !== sum(entries.map((entry) => entry.amountMinor))) fail('file debit total');
  if (control.totalCredit !== 0) fail('file credit total');
  return data;
}
