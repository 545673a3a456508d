import { parseArgs } from 'node:util';
import { createPaywireClient } from '@paywire/client';
import { loadReportEnv } from './env.ts';
import { fetchSettlementReport, formatSettlementReport } from './report.ts';

/**
 * npm run settlement-report -- [--date YYYY-MM-DD] [--json]: a merchant's daily settlement (default
 * yesterday, UTC), read from core over tRPC with the service's own credential.
 */
const { values } = parseArgs({
  options: { date: { type: 'string' }, json: { type: 'boolean', default: false } },
});
const date = values.date ?? new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) {
  process.stderr.write('usage: npm run settlement-report -- [--date YYYY-MM-DD] [--json]\n');
  process.exit(2);
}

const env = loadReportEnv();
const client = createPaywireClient({ url: env.CORE_URL, credential: env.CORE_CREDENTIAL, maxSockets: 1 });
try {
  const report = await fetchSettlementReport(client, date);
  process.stdout.write(`${values.json ? JSON.stringify(report) : formatSettlementReport(report)}\n`);
} catch (error) {
  process.stderr.write(
    `settlement report failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exitCode = 1;
}
