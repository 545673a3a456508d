import { describe, expect, it } from 'vitest';
import { sandboxAchAccounts, sandboxAchBank, sandboxOriginator } from './bank.ts';
import { type AchEntry, checkNachaFile, nachaFile } from './nacha.ts';

const on = new Date('2026-11-26T12:00:00Z');
const entries: AchEntry[] = [
  {
    reference: '101',
    merchantId: 1,
    routingNumber: '011000015',
    accountNumber: '1234567890',
    accountType: 'CONSUMER_CHECKING',
    amountMinor: 1050,
    name: 'Ada Lovelace',
    effectiveOn: on,
  },
  {
    reference: '102',
    merchantId: 2,
    routingNumber: '021000021',
    accountNumber: sandboxAchAccounts.returned,
    accountType: 'CONSUMER_SAVINGS',
    amountMinor: 200,
    name: 'Zoë O’Brien',
    effectiveOn: on,
  },
  {
    reference: '103',
    merchantId: 1,
    routingNumber: '021000021',
    accountNumber: sandboxAchAccounts.fails,
    accountType: 'CORPORATE_CHECKING',
    amountMinor: 99_999,
    name: 'Carol',
    effectiveOn: on,
  },
];

describe('NACHA files', () => {
  it('writes a batch per merchant whose controls add up, and reads back as written', () => {
    const file = nachaFile(sandboxOriginator, entries);
    const records = file.split('\n').filter(Boolean);
    expect(records.every((record) => record.length === 94)).toBe(true);
    expect(records.length % 10).toBe(0);
    const data = checkNachaFile(file, entries);
    expect(data.batches.map((batch) => batch.entries.length)).toEqual([2, 1]);
    expect(data.batches.every((batch) => batch.entryClassCode === 'WEB')).toBe(true);
    expect(data.file.footer).toMatchObject({
      batchCount: 2,
      entryAndAddendaCount: 3,
      entryHash: 1_100_001 + 2 * 2_100_002,
      totalDebit: 1050 + 200 + 99_999,
      totalCredit: 0,
    });
    // checking 27, savings 37: debits
    expect(data.batches.flatMap((batch) => batch.entries.map((entry) => entry.transactionCode))).toEqual([
      '27',
      '27',
      '37',
    ]);
    expect(file).toContain('ZO  O BRIEN');
  });

  it('refuses a file that does not say what was meant', () => {
    const file = nachaFile(sandboxOriginator, entries);
    const [first, ...rest] = entries as [AchEntry, ...AchEntry[]];
    expect(() => checkNachaFile(file, [{ ...first, amountMinor: 1051 }, ...rest])).toThrow(
      /entry 101: amount/,
    );
    expect(() => checkNachaFile(file, rest)).toThrow(/batch count|unexpected/);
    const tampered = file.replace('0000001050', '0000001060');
    expect(() => checkNachaFile(tampered, entries)).toThrow(/NACHA file/);
  });

  it('the sandbox bank answers each entry by its account number', async () => {
    const answers = await sandboxAchBank.submit(nachaFile(sandboxOriginator, entries));
    expect(Object.fromEntries(answers)).toEqual({
      101: { outcome: 'SUCCESS' },
      102: { outcome: 'SUCCESS_THEN_RETURN', returnCode: 'R01' },
      103: { outcome: 'FAIL', returnCode: 'R03' },
    });
  });
});
