/**
 * A statement with named parameters (`:name`; not a `::cast`, nor text in a '...' literal such as
 * 'HH24:MI') as PostgreSQL's `$n` parameters,
 * numbered in order of first use: report sources share their filters, and a source only names those it
 * has columns for (PostgreSQL refuses a parameter no statement text uses).
 */
export function bound(sql: string, values: Record<string, unknown>): { text: string; params: unknown[] } {
  const order: string[] = [];
  const text = sql.replace(/'(?:[^']|'')*'|(?<!:):([a-zA-Z]\w*)/g, (match, name: string | undefined) => {
    if (name === undefined) return match;
    if (!Object.hasOwn(values, name)) throw new Error(`report statement names an unknown parameter :${name}`);
    let position = order.indexOf(name);
    if (position < 0) position = order.push(name) - 1;
    return `$${position + 1}`;
  });
  return { text, params: order.map((name) => values[name]) };
}
