import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createPaywireClient } from '@paywire/client';
import { createAltTransactionInput, validate } from '@paywire/contracts';
import { type RunningCore, startCore } from '@paywire/core';
import { createLogger } from '@paywire/observability';
import pg from 'pg';
import { type BenchDatabase, startBenchDatabase, stopParts, stopsOnce } from './bench-database.ts';

/**
 * SEPA settlement: N pending debits opened through core's tRPC sepa.create (32 in flight, each a new
 * shopper and mandate, as POST /alt-transactions makes them), then the merchant's sandbox clock advanced
 * past their due time; measured from the advance until no debit is PENDING, as the core's settlement
 * workers (a pg-boss job kicked by the advance, batches taken FOR UPDATE SKIP LOCKED over a few lanes)
 * move them. One IBAN in three goes SUCCESS, one FAIL, one SUCCESS then REFUNDED (the return is due one
 * settle interval later, so a single long advance settles both steps). Core runs in this process on a
 * durable embedded PostgreSQL; no IPN destination is configured (events are checked for and skipped).
 * Usage: node test/bench/sepa-settlement.bench.ts [--debits 10000] [--timeout-seconds 300]
 */
const { values: args } = parseArgs({
  options: {
    debits: { type: 'string', default: '10000' },
    'timeout-seconds': { type: 'string', default: '300' },
  },
});
const debitsWanted = Number(args.debits);
const timeoutSeconds = Number(args['timeout-seconds']);
const inFlight = 32;
const ibans = ['DE89370400440532013000', 'DE62370400440532013001', 'DE35370400440532013002'];

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line: string) => process.stderr.write(`${line}\n`);

let database: BenchDatabase | undefined;
let core: RunningCore | undefined;
let db: pg.Client | undefined;
const cleanup = stopsOnce(() => stopParts({ database, core, db }, log), log);

let failed = false;
try {
  database = await startBenchDatabase('sepa-bench');
  const { databaseUrl } = database;
  const merchantId = database.merchant.id;
  core = await startCore({
    databaseUrl,
    port: 0,
    mode: 'sandbox',
    cardEncryptionKey: randomBytes(32),
    sepaSandboxSettleSeconds: 120,
    log: createLogger('core', (line) => log(`core: ${line.trimEnd()}`), 'warn'),
  });
  const client = createPaywireClient({ url: core.url, credential: database.facadeCredential });
  const asMerchant = {
    context: { paywire: { merchantId } },
    signal: AbortSignal.timeout(timeoutSeconds * 1000),
  };
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const pending = async () =>
    Number((await db?.query("select count(*) as n from sepa_debit where status = 'PENDING'"))?.rows[0]?.n);

  log(`opening ${debitsWanted} debits, ${inFlight} in flight`);
  const openedAt = performance.now();
  let next = 0;
  let errors = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < debitsWanted) {
        const n = next++;
        const input = validate(createAltTransactionInput, {
          sepaDirectDebitTransaction: { iban: ibans[n % ibans.length] },
          payerInfo: { firstName: 'Bench', lastName: `Payer ${n}` },
          amount: '19.99',
          currency: 'EUR',
          authorizedByShopper: true,
        });
        try {
          await client.sepa.create.mutate(input, asMerchant);
        } catch (error) {
          if (++errors <= 5) log(`open failed: ${String(error)}`);
        }
      }
    }),
  );
  const openSeconds = (performance.now() - openedAt) / 1000;
  const opened = await pending();
  log(`${opened} pending after ${openSeconds.toFixed(1)} s; advancing the clock by a day`);

  const started = performance.now();
  await client.clock.advance.mutate({ advanceBy: 'P1D' }, asMerchant);
  const deadline = Date.now() + timeoutSeconds * 1000;
  let left = opened;
  let firstSettledMs: number | undefined;
  while (left > 0 && Date.now() < deadline) {
    await pause(50);
    left = await pending();
    if (firstSettledMs === undefined && left < opened) firstSettledMs = performance.now() - started;
  }
  const settledSeconds = (performance.now() - started) / 1000;
  // Returns (the REFUNDED scenario) are a second step of a third of the debits; wait for those too.
  let returnsLeft = 1;
  while (returnsLeft > 0 && Date.now() < deadline) {
    returnsLeft = Number(
      (await db.query('select count(*) as n from sepa_debit where next_action_at is not null')).rows[0]?.n,
    );
    if (returnsLeft > 0) await pause(50);
  }
  const allStepsSeconds = (performance.now() - started) / 1000;
  const { rows: states } = await db.query<{ status: string; n: string }>(
    'select status, count(*) as n from sepa_debit group by status order by status',
  );
  const { rows: refunds } = await db.query<{ n: string }>('select count(*) as n from sepa_refund');
  const transitions = opened + Number(refunds[0]?.n ?? 0);

  process.stdout.write(
    [
      '',
      `SEPA settlement, ${new Date().toISOString()}: ${opened} pending debits of one merchant (a third each SUCCESS, FAIL, SUCCESS then REFUNDED), settled by core's workers after one sandbox clock advance; core in this process, durable embedded PostgreSQL, no IPN destination`,
      '',
      '| figure | value |',
      '|---|---|',
      `| debits opened (tRPC sepa.create, ${inFlight} in flight) | ${opened} in ${openSeconds.toFixed(1)} s (${(opened / openSeconds).toFixed(0)}/s), ${errors} errors |`,
      `| clock advance -> first debit settled | ${firstSettledMs === undefined ? 'n/a' : `${firstSettledMs.toFixed(0)} ms`} |`,
      `| clock advance -> none PENDING | ${settledSeconds.toFixed(2)} s |`,
      `| **debits settled/s** | **${(opened / settledSeconds).toFixed(0)}** |`,
      `| clock advance -> returns done too | ${allStepsSeconds.toFixed(2)} s (${transitions} transitions, ${(transitions / allStepsSeconds).toFixed(0)}/s) |`,
      `| final states | ${states.map((row) => `${row.status} ${row.n}`).join(', ')} |`,
      '',
    ].join('\n'),
  );
  if (left > 0 || returnsLeft > 0 || errors > 0) failed = true;
} catch (error) {
  failed = true;
  log(`benchmark failed: ${(error as Error).stack ?? String(error)}`);
} finally {
  await cleanup();
}
process.exit(failed ? 1 : 0);
