import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createPaywireClient } from '@paywire/client';
import { createTransactionInput, validate } from '@paywire/contracts';
import { coreRegistry, createSandboxProcessor, type RunningCore, startCore } from '@paywire/core';
import { createLogger } from '@paywire/observability';
import pg from 'pg';
import { type BenchDatabase, startBenchDatabase, stopParts, stopsOnce } from './bench-database.ts';
import { postgresCpuMs } from './processes.ts';

/**
 * Renewals: N active MONTHLY card subscriptions of one merchant, each its own shopper and vaulted card
 * (seeded with bulk SQL from one real sale's shopper and card), all falling due on the same day; the
 * merchant's sandbox clock is advanced past it and the time measured until every subscription has been
 * charged and moved to its next period by core's renewal workers (a pg-boss run kicked by the advance,
 * leased batches worked by bounded lanes, each charge through the phased createTransaction). With
 * --latency-ms the sandbox acquirer answers after that long: the renewals in flight at once (sampled as
 * pending payment attempts) and the rate, against the DATABASE_POOL_SIZE / latency a connection held per
 * renewal would allow, show whether the acquirer's wait holds a connection. Core runs in this process on a
 * durable embedded PostgreSQL; no IPN destination is configured.
 * Usage: node test/bench/recurring.bench.ts [--subscriptions 10000] [--latency-ms 0] [--timeout-seconds 300]
 */
const { values: args } = parseArgs({
  options: {
    subscriptions: { type: 'string', default: '10000' },
    'latency-ms': { type: 'string', default: '0' },
    'timeout-seconds': { type: 'string', default: '300' },
  },
});
const wanted = Number(args.subscriptions);
const latencyMs = Number(args['latency-ms']);
const timeoutSeconds = Number(args['timeout-seconds']);
const poolSize = 16;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line: string) => process.stderr.write(`${line}\n`);

let database: BenchDatabase | undefined;
let core: RunningCore | undefined;
let db: pg.Client | undefined;
const cleanup = stopsOnce(() => stopParts({ database, core, db }, log), log);

/** N subscriptions, each with a shopper and card cloned from the template sale's, due on `dueDate`. */
async function seed(client: pg.Client, merchantId: number, template: { shopper: number }, dueDate: string) {
  await client.query('begin');
  const { rows: plans } = await client.query<{ id: string }>(
    `insert into recurring_plan (merchant_id, name, currency, recurring_charge_minor, charge_frequency, status,
       created_at, updated_at)
     values ($1, 'Bench monthly', 'USD', 999, 'MONTHLY', 'ACTIVE', now(), now()) returning id`,
    [merchantId],
  );
  await client.query(
    `with shoppers as (
       insert into shopper (merchant_id, first_name, last_name, created_at, updated_at)
       select $1, 'Bench', 'Subscriber ' || n, now(), now() from generate_series(1, $5::int) n returning id),
     cards as (
       insert into stored_card (merchant_id, shopper_id, fingerprint, sealed_number, brand, last_four,
         expiration_month, expiration_year, card_sub_type, card_category, created_at)
       select $1, s.id, c.fingerprint, c.sealed_number, c.brand, c.last_four, c.expiration_month,
         c.expiration_year, c.card_sub_type, c.card_category, now()
       from shoppers s cross join (select * from stored_card where shopper_id = $2) c
       returning id, shopper_id)
     insert into subscription (merchant_id, plan_id, shopper_id, status, currency, card_id, anchor_date,
       anchor_period, next_period, next_charge_date, charges_made, started_at, created_at, updated_at)
     select $1, $3, shopper_id, 'ACTIVE', 'USD', id, $4::date, 1, 1, $4::date, 0, now(), now(), now() from cards`,
    [merchantId, template.shopper, plans[0]?.id, dueDate, wanted],
  );
  await client.query('commit');
}

let failed = false;
try {
  database = await startBenchDatabase('recurring-bench');
  const { databaseUrl } = database;
  const merchantId = database.merchant.id;
  core = await startCore({
    databaseUrl,
    port: 0,
    mode: 'sandbox',
    poolSize,
    cardEncryptionKey: randomBytes(32),
    sandbox: createSandboxProcessor({ latencyMs }),
    log: createLogger('core', (line) => log(`core: ${line.trimEnd()}`), 'warn'),
  });
  const client = createPaywireClient({ url: core.url, credential: database.facadeCredential });
  const asMerchant = {
    context: { paywire: { merchantId } },
    signal: AbortSignal.timeout(timeoutSeconds * 1000),
  };
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();

  // One real sale: its shopper and vaulted card are the template of every subscriber.
  const sale = await client.cards.create.mutate(
    validate(createTransactionInput, {
      cardTransactionType: 'AUTH_CAPTURE',
      amount: '9.99',
      currency: 'USD',
      cardHolderInfo: { firstName: 'Bench', lastName: 'Template' },
      creditCard: {
        cardNumber: '4263982640269299',
        securityCode: '837',
        expirationMonth: '02',
        expirationYear: '2031',
      },
    }),
    asMerchant,
  );
  const clock = await client.clock.get.query(undefined, asMerchant);
  const dueDate = new Date(Date.parse(clock.now) + 86_400_000).toISOString().slice(0, 10);
  const seededAt = performance.now();
  await seed(db, merchantId, { shopper: sale.vaultedShopperId }, dueDate);
  log(
    `seeded ${wanted} subscriptions due ${dueDate} in ${((performance.now() - seededAt) / 1000).toFixed(1)} s`,
  );

  // Polled from core's own counter (it runs in this process): a query every poll would cost PostgreSQL a scan
  // of every subscription, counted in the renewal's CPU. The database is asked once, at the end.
  const charged = async () => {
    const counted = await coreRegistry.getSingleMetric('paywire_renewals_total')?.get();
    return (counted?.values ?? [])
      .filter(({ labels }) => labels.outcome === 'charged' || labels.outcome === 'finished')
      .reduce((sum, { value }) => sum + value, 0);
  };
  const renewed = async () =>
    Number(
      (
        await db?.query(
          'select count(*) as n from subscription where next_period = 2 and renewal_lease_until is null',
        )
      )?.rows[0]?.n,
    );
  const inFlight = async () =>
    Number(
      (await db?.query(`select count(*) as n from payment_attempt where state = 'PENDING'`))?.rows[0]?.n,
    );

  // CPU time spent, read from /proc: this process (core) and every PostgreSQL process, those the pool opens
  // during the run included, so the cost of a renewal can be told apart from the wait for a CPU the shared
  // machine's other work holds.
  const { dataDir } = database;
  const databaseCpuMsSince = async (before: Map<number, number>) => {
    let sum = 0;
    for (const [pid, ms] of await postgresCpuMs(dataDir)) sum += ms - (before.get(pid) ?? 0);
    return sum;
  };
  const coreCpuMs = () => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1000;
  };
  const cpuBefore = { core: coreCpuMs(), database: await postgresCpuMs(dataDir) };
  const started = performance.now();
  await client.clock.advance.mutate({ advanceBy: 'P2D' }, asMerchant);
  const deadline = Date.now() + timeoutSeconds * 1000;
  let done = 0;
  let firstMs: number | undefined;
  let maxInFlight = 0;
  while (done < wanted && Date.now() < deadline) {
    await pause(latencyMs > 0 ? 20 : 50);
    if (latencyMs > 0) maxInFlight = Math.max(maxInFlight, await inFlight());
    done = await charged();
    if (firstMs === undefined && done > 0) firstMs = performance.now() - started;
  }
  const seconds = (performance.now() - started) / 1000;
  done = await renewed();
  const coreMs = (coreCpuMs() - cpuBefore.core) / done;
  const databaseMs = (await databaseCpuMsSince(cpuBefore.database)) / done;
  const { rows: charges } = await db.query<{ status: string; n: string }>(
    `select status, count(*) as n from subscription_charge where period = 1 group by status order by status`,
  );
  const { rows: twice } = await db.query<{ n: string }>(
    `select count(*) as n from (select subscription_id from subscription_charge where period = 1
       group by subscription_id having count(*) > 1) t`,
  );
  const rate = done / seconds;
  const heldBound = poolSize / (latencyMs / 1000);
  process.stdout.write(
    [
      '',
      `Subscription renewals, ${new Date().toISOString()}: ${wanted} active MONTHLY card subscriptions of one merchant, each its own shopper and vaulted card, all due after one sandbox clock advance; acquirer latency ${latencyMs} ms; core in this process (pool ${poolSize}), durable embedded PostgreSQL, no IPN destination`,
      '',
      '| figure | value |',
      '|---|---|',
      `| clock advance -> first renewal | ${firstMs === undefined ? 'n/a' : `${firstMs.toFixed(0)} ms`} |`,
      `| clock advance -> all renewed | ${seconds.toFixed(2)} s (${done} of ${wanted}) |`,
      `| **renewals/s** | **${rate.toFixed(0)}** |`,
      ...(latencyMs > 0
        ? [
            `| renewals in flight at once (max pending attempts sampled) | ${maxInFlight} |`,
            `| rate if each renewal held a pool connection across the acquirer | at most ${heldBound.toFixed(0)}/s |`,
          ]
        : []),
      `| CPU per renewal: core (this process, the bench's polling included) / PostgreSQL | ${coreMs.toFixed(2)} ms / ${databaseMs.toFixed(2)} ms |`,
      `| renewals/s those CPU costs allow on 2 idle cores | ${(2000 / (coreMs + databaseMs)).toFixed(0)} |`,
      `| period-1 charges | ${charges.map((row) => `${row.status} ${row.n}`).join(', ')}; charged twice: ${twice[0]?.n} |`,
      '',
    ].join('\n'),
  );
  if (done < wanted || Number(twice[0]?.n) > 0) failed = true;
} catch (error) {
  failed = true;
  log(`benchmark failed: ${(error as Error).stack ?? String(error)}`);
} finally {
  await cleanup();
}
process.exit(failed ? 1 : 0);
