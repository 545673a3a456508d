import type { ReportPlan } from '@paywire/contracts';

/**
 * A report as the original writes it, produced piece by piece from batches of rows so that no report is
 * ever whole in memory: JSON `{"data":[{column: value}], "title", "params", "date_range"}` (plus our
 * `totals` when gettotal=true), or CSV with a header line.
 */
export type ReportFormat = 'json' | 'csv';

export const reportMediaTypes: Record<ReportFormat, string> = {
  json: 'application/json; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
};

type Batches = AsyncIterable<string[][]>;

const totalColumns = ['Auth. Currency', 'Row Count', 'Total Amount'] as const;

function totalRows(plan: ReportPlan): string[][] {
  return (plan.totals ?? []).map((total) => [total.currency, String(total.rowCount), total.amount]);
}

export async function* reportDocument(format: ReportFormat, plan: ReportPlan, batches: Batches) {
  yield* format === 'csv' ? csvDocument(plan, batches) : jsonDocument(plan, batches);
}

async function* jsonDocument(plan: ReportPlan, batches: Batches): AsyncGenerator<string> {
  const asObject = (columns: readonly string[], row: string[]) =>
    JSON.stringify(Object.fromEntries(columns.map((column, i) => [column, row[i] ?? ''])));
  let separator = '';
  yield '{"data":[';
  for await (const rows of batches) {
    if (rows.length === 0) continue;
    yield separator + rows.map((row) => asObject(plan.columns, row)).join(',');
    separator = ',';
  }
  const tail: Record<string, unknown> = { title: plan.title, params: plan.params };
  if (plan.dateRange !== null) tail.date_range = plan.dateRange;
  if (plan.totals !== null)
    tail.totals = totalRows(plan).map((row) => JSON.parse(asObject(totalColumns, row)));
  yield `],${JSON.stringify(tail).slice(1)}`;
}

async function* csvDocument(plan: ReportPlan, batches: Batches): AsyncGenerator<string> {
  yield csvLine(plan.columns);
  for await (const rows of batches) {
    if (rows.length > 0) yield rows.map(csvLine).join('');
  }
  if (plan.totals !== null) yield `\r\n${csvLine(totalColumns)}${totalRows(plan).map(csvLine).join('')}`;
}

/**
 * One CSV record (RFC 4180). A text cell a spreadsheet would run as a formula (=, +, -, @ first) gets a
 * leading apostrophe: shopper names and merchant ids are the shopper's or merchant's text. Numbers,
 * negative amounts included, are left as they are.
 */
export function csvLine(values: readonly string[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}

function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) && !/^[-+]?\d+(\.\d+)?$/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}
