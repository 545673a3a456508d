import type { ReportPlan } from '@paywire/contracts';
import { describe, expect, it } from 'vitest';
import { csvLine, reportDocument } from './report-documents.ts';

const plan: ReportPlan = {
  title: 'Transaction Detail',
  columns: ['Invoice ID', 'Amount'],
  params: [{ name: 'Period', value: 'CUSTOM' }],
  dateRange: '01/01/2026 - 01/31/2026',
  window: null,
  totalRowCount: 3,
  totals: [{ currency: 'EUR', rowCount: 3, amount: '7.50' }],
};

async function* batches(...list: string[][][]) {
  yield* list;
}

async function text(format: 'json' | 'csv', ...list: string[][][]) {
  let out = '';
  for await (const chunk of reportDocument(format, plan, batches(...list))) out += chunk;
  return out;
}

describe('report documents', () => {
  it('writes JSON as the original does, rows from every batch in order', async () => {
    const json = JSON.parse(
      await text(
        'json',
        [['1', '2.50']],
        [],
        [
          ['2', '5.00'],
          ['3', '0.00'],
        ],
      ),
    );
    expect(json).toEqual({
      data: [
        { 'Invoice ID': '1', Amount: '2.50' },
        { 'Invoice ID': '2', Amount: '5.00' },
        { 'Invoice ID': '3', Amount: '0.00' },
      ],
      title: 'Transaction Detail',
      params: [{ name: 'Period', value: 'CUSTOM' }],
      date_range: '01/01/2026 - 01/31/2026',
      totals: [{ 'Auth. Currency': 'EUR', 'Row Count': '3', 'Total Amount': '7.50' }],
    });
  });

  it('writes valid JSON for an empty report', async () => {
    expect(JSON.parse(await text('json')).data).toEqual([]);
  });

  it('writes CSV with a header, quoting what needs it, totals after a blank line', async () => {
    expect(await text('csv', [['1', 'a,"b"']])).toBe(
      'Invoice ID,Amount\r\n1,"a,""b"""\r\n\r\nAuth. Currency,Row Count,Total Amount\r\nEUR,3,7.50\r\n',
    );
  });

  it('defuses cells a spreadsheet would run as formulas, but not negative amounts', () => {
    expect(csvLine(['=HYPERLINK("x")', '-12.50', '@me', '+1'])).toBe(
      `"'=HYPERLINK(""x"")",-12.50,'@me,+1\r\n`,
    );
  });
});
