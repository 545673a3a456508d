import { expect } from 'vitest';
import { as, type client, expectStatus } from './http.ts';
import type { TestMerchant } from './stack.ts';

/** The Reporting API as a merchant calls it, and the pieces of its answers tests look at. */

type Api = ReturnType<typeof client>;

export type ReportRow = Record<string, string>;

export interface ReportAnswer {
  rows: ReportRow[];
  headers: Headers;
  /** JSON answers only: the document's other members (title, params, date_range, totals). */
  document?: Record<string, unknown>;
}

const query = (parameters: Record<string, string | number>) =>
  new URLSearchParams(
    Object.entries(parameters).map(([key, value]): [string, string] => [key, String(value)]),
  ).toString();

export async function fetchReport(
  api: Api,
  merchant: TestMerchant,
  code: string,
  parameters: Record<string, string | number>,
  format: 'json' | 'csv' = 'json',
): Promise<ReportAnswer> {
  const reply = expectStatus(
    await api.get(`/report/${code}?${query({ ...parameters, format })}`, as(merchant)),
    200,
  );
  if (format === 'csv') {
    expect(reply.headers.get('content-type')).toMatch(/^text\/csv/);
    return { rows: csvRecords(reply.text), headers: reply.headers };
  }
  const { data, ...document } = reply.body as { data: ReportRow[] };
  return { rows: data, headers: reply.headers, document };
}

/** Every page of a report, following next-page-token from the first. */
export async function fetchAllPages(
  api: Api,
  merchant: TestMerchant,
  code: string,
  parameters: Record<string, string | number>,
  pageSize: number,
): Promise<ReportRow[]> {
  const rows: ReportRow[] = [];
  let next: Record<string, string | number> = { ...parameters, pageSize };
  for (;;) {
    const page = await fetchReport(api, merchant, code, next);
    expect(page.headers.get('start-row')).toBe(String(rows.length + 1));
    rows.push(...page.rows);
    const token = page.headers.get('next-page-token');
    if (token === null) return rows;
    expect(page.rows).toHaveLength(pageSize);
    next = { nextPageToken: token };
  }
}

/** The records of a CSV answer (RFC 4180) as objects by header; stops at the blank line before totals. */
export function csvRecords(text: string): ReportRow[] {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted && char === '"' && text[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (char === '"') {
      quoted = !quoted;
    } else if (!quoted && char === ',') {
      record.push(cell);
      cell = '';
    } else if (!quoted && char === '\r' && text[i + 1] === '\n') {
      record.push(cell);
      records.push(record);
      record = [];
      cell = '';
      i++;
    } else {
      cell += char;
    }
  }
  const [header = [], ...body] = records;
  const end = body.findIndex((values) => values.length === 1 && values[0] === '');
  return (end < 0 ? body : body.slice(0, end)).map((values) =>
    Object.fromEntries(header.map((name, i) => [name, values[i] ?? ''])),
  );
}

/** Minor units of a report's decimal amount text ("-12.50" in USD -> -1250, "1000" in JPY -> 1000). */
export function minorOf(amount: string, currency: string): number {
  const exponent = currency === 'JPY' ? 0 : 2;
  const [whole = '0', fraction = ''] = amount.replace('-', '').split('.');
  expect(fraction.length, `${amount} in ${currency}`).toBe(exponent);
  const minor = Number(whole) * 10 ** exponent + Number(fraction || 0);
  return amount.startsWith('-') ? -minor : minor;
}

/** Sums of a money column per currency column value. */
export function sumsBy(
  rows: ReportRow[],
  currencyColumn: string,
  amountColumn: string,
): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const row of rows) {
    const currency = row[currencyColumn] ?? '';
    sums[currency] = (sums[currency] ?? 0) + minorOf(row[amountColumn] ?? '', currency);
  }
  return sums;
}

/** A CUSTOM period of the days around the merchant's clock (in the reporting zone, UTC-8). */
export async function customPeriodAround(api: Api, merchant: TestMerchant, days = 30) {
  const now = Date.parse(expectStatus(await api.get('/sandbox/clock', as(merchant)), 200).body.now);
  const day = (offsetDays: number) => {
    const local = new Date(now - 8 * 3_600_000 + offsetDays * 86_400_000);
    return `${String(local.getUTCMonth() + 1).padStart(2, '0')}/${String(local.getUTCDate()).padStart(2, '0')}/${local.getUTCFullYear()}`;
  };
  return { period: 'CUSTOM', from_date: day(-days), to_date: day(days) };
}
