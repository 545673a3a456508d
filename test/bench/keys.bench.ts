import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { passesLuhn } from '@paywire/contracts';
import { bindings, createPkcs11Kek, keyProviderOf, loadKeyEnv, openDatabase, openVault } from '@paywire/core';
import pg from 'pg';
import { issueCaller } from '../../infra/callers.ts';
import { saleBody } from '../support/http.ts';
import { freePort } from '../support/ports.ts';
import { newSoftHsmToken, type SoftHsmToken, softHsmAvailable } from '../support/softhsm.ts';
import { type BenchDatabase, startBenchDatabase, stopsOnce } from './bench-database.ts';
import { benchProcesses } from './processes.ts';
import { cpuRow, type Figures, paywireCpu, row, saleLoader, statusList, summarise } from './sale-load.ts';

/**
 * The cost of keys in an HSM (issue 22, Performance), facade and core as child processes as npm start runs
 * them, each service on a durable embedded PostgreSQL of its own (their key-encryption keys differ):
 * (a) plain AUTH_CAPTURE sales, alternating between a service with the `file` key provider and one with the
 *     `pkcs11` provider on a SoftHSM2 token: CPU per sale of facade + core + PostgreSQL, and their ratio
 *     (target 1.05 or less: the data keys are unwrapped once, never per request);
 * (b) N vaulted cards on the pkcs11 service, each its own shopper, sealed by core's vault under the current
 *     data key; then `npm run keys -- rotate` while a sale load runs: the workers' re-encryption rate, the
 *     sales' p99 and failed requests during it (target 0), and every card opened under the new key afterwards.
 * Usage: npm run bench:keys -- [--cards 100000] [--seconds 10] [--rounds 3] [--connections 256]
 *   [--timeout-seconds 900]
 */
const { values: args } = parseArgs({
  options: {
    cards: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '256' },
    'timeout-seconds': { type: 'string', default: '900' },
  },
});
const positive = (name: keyof typeof args) => {
  const value = Number(args[name]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name}: a whole number above 0`);
  return value;
};
const cards = positive('cards');
const seconds = positive('seconds');
const rounds = positive('rounds');
const connections = positive('connections');
const timeoutSeconds = positive('timeout-seconds');
const cpuTarget = 1.05;
// Each core re-reads the keys every second, so a rotation's key may seal after 3 s (3 x the refresh).
const activateAfterSeconds = 3;
const seedBatch = 5000;

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const log = (line: string) => process.stderr.write(`${line}\n`);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const processes = benchProcesses();
const databases: BenchDatabase[] = [];
let token: SoftHsmToken | undefined;
const cleanup = stopsOnce(async () => {
  await processes.stop();
  for (const database of databases)
    await database.stop().catch((error: unknown) => log(`stopping PostgreSQL: ${String(error)}`));
  if (token) rmSync(path.dirname(token.conf), { recursive: true, force: true });
}, log);

/** A facade and a core (its workers included) on a bench database, with the key provider's settings. */
async function startService(database: BenchDatabase, keyEnv: Record<string, string>) {
  const corePort = await freePort();
  const facadePort = await freePort();
  const core = await processes.start('apps/core/src/main.ts', [], {
    DATABASE_URL: database.databaseUrl,
    CORE_PORT: String(corePort),
    KEY_REFRESH_SECONDS: '1',
    KEY_RETIRE_AFTER_SECONDS: '2',
    ...keyEnv,
  });
  const facade = await processes.start('apps/facade/src/main.ts', [], {
    PORT: String(facadePort),
    HOST: '127.0.0.1',
    CORE_URL: `http://127.0.0.1:${corePort}/trpc`,
    CORE_CREDENTIAL: database.facadeCredential,
    LOG_REQUESTS: 'false',
  });
  const { username, password } = database.merchant;
  return {
    url: `http://127.0.0.1:${facadePort}/services/2/transactions`,
    coreUrl: `http://127.0.0.1:${corePort}/trpc`,
    processes: { facade, core },
    authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
    loader: saleLoader({ connections, seconds, rounds, dataDir: database.dataDir, cpuMs: processes.cpuMs }),
  };
}

/** A distinct Visa number per index (Luhn-valid), so every vaulted card is its own. */
function cardNumber(index: number): string {
  const body = `4${String(index).padStart(14, '0')}`;
  return body + [...'0123456789'].find((digit) => passesLuhn(body + digit));
}

/**
 * N vaulted cards of one merchant, each its own shopper, sealed and fingerprinted by core's vault under the
 * database's current keys (the KEK on the token unwraps them here as in core), inserted in batches. The card's
 * other columns are copied from a card a real sale vaulted. Returns the numbers by shopper id.
 */
async function seedCards(
  databaseUrl: string,
  merchantId: number,
  keyEnv: Record<string, string>,
  db: pg.Client,
): Promise<Map<number, string>> {
  const provider = await keyProviderOf(loadKeyEnv(keyEnv));
  const orm = await openDatabase(databaseUrl, 1);
  const numbers = new Map<number, string>();
  try {
    const vault = await openVault(orm.em.fork(), provider, undefined);
    for (let first = 0; first < cards; first += seedBatch) {
      const batch = Array.from({ length: Math.min(seedBatch, cards - first) }, (_, i) => {
        const number = cardNumber(first + i + 1);
        const fingerprint = vault.fingerprint(number);
        return {
          number,
          fingerprint,
          sealed: vault.seal(number, bindings.card(merchantId, fingerprint)),
        };
      });
      const { rows } = await db.query<{ shopper_id: string; n: string }>(
        `with cards as (
           select * from unnest($2::text[], $3::text[], $4::text[]) with ordinality as c(fingerprint, sealed, last_four, n)),
         shoppers as (
           insert into shopper (merchant_id, first_name, last_name, created_at, updated_at)
           select $1, 'Bench', 'Vaulted ' || ($5::int + n), now(), now() from cards returning id, last_name),
         pairs as (
           select s.id as shopper_id, c.* from cards c join shoppers s on s.last_name = 'Vaulted ' || ($5::int + c.n)),
         template as (
           select brand, expiration_month, expiration_year, card_sub_type, card_category from stored_card
           where merchant_id = $1 order by id limit 1),
         inserted as (
           insert into stored_card (merchant_id, shopper_id, fingerprint, sealed_number, brand, last_four,
             expiration_month, expiration_year, card_sub_type, card_category, created_at)
           select $1, p.shopper_id, p.fingerprint, p.sealed, t.brand, p.last_four, t.expiration_month,
             t.expiration_year, t.card_sub_type, t.card_category, now()
           from pairs p cross join template t returning shopper_id)
         select p.shopper_id, p.n from pairs p join inserted i using (shopper_id)`,
        [
          merchantId,
          batch.map((card) => card.fingerprint),
          batch.map((card) => card.sealed),
          batch.map((card) => card.number.slice(-4)),
          first,
        ],
      );
      if (rows.length !== batch.length) throw new Error(`seeded ${rows.length} of ${batch.length} cards`);
      for (const inserted of rows)
        numbers.set(Number(inserted.shopper_id), batch[Number(inserted.n) - 1]?.number as string);
    }
  } finally {
    await orm.close();
    await provider.close();
  }
  return numbers;
}

/** The seeded cards as stored now: how many are under the key, and how many open (there) to their number. */
async function checkCards(
  databaseUrl: string,
  merchantId: number,
  keyEnv: Record<string, string>,
  keyId: number,
  numbers: Map<number, string>,
  db: pg.Client,
): Promise<{ underKey: number; opened: number; total: number }> {
  const provider = await keyProviderOf(loadKeyEnv(keyEnv));
  const orm = await openDatabase(databaseUrl, 1);
  try {
    const vault = await openVault(orm.em.fork(), provider, undefined);
    const { rows } = await db.query<{ shopper_id: string; fingerprint: string; sealed_number: string }>(
      'select shopper_id, fingerprint, sealed_number from stored_card where merchant_id = $1',
      [merchantId],
    );
    let underKey = 0;
    let opened = 0;
    for (const card of rows) {
      if (card.sealed_number.startsWith(`v2:${keyId}:`)) underKey++;
      const number = numbers.get(Number(card.shopper_id));
      if (number === undefined) continue; // a card the sale load vaulted
      try {
        if (vault.open(card.sealed_number, bindings.card(merchantId, card.fingerprint)) === number) opened++;
      } catch {
        // counted as not opened
      }
    }
    return { underKey, opened, total: rows.length };
  } finally {
    await orm.close();
    await provider.close();
  }
}

/** `npm run keys -- rotate` as an operator runs it; the new data key's id. */
async function rotate(coreUrl: string, adminCredential: string): Promise<number> {
  const { stdout } = await run(
    process.execPath,
    [path.join(root, 'infra/keys.ts'), 'rotate', '--activate-after', String(activateAfterSeconds)],
    { env: { ...process.env, CORE_URL: coreUrl, PAYWIRE_ADMIN_CREDENTIAL: adminCredential } },
  );
  const keyId = Number(/data key (\d+) made/.exec(stdout)?.[1]);
  if (!Number.isInteger(keyId)) throw new Error(`keys rotate said: ${stdout}`);
  return keyId;
}

interface Reencryption {
  keyId: number;
  /** Cards the (last) walk of the stored cards re-encrypted. */
  rows: number;
  /** That walk's rate, between the first progress seen and its end (database clock). */
  cardsPerSecond: number;
  /** From the key's activation (when the workers are asked to start) to the first progress seen. */
  startedAfterSeconds: number;
  /** From the key's activation to the stored cards' walk finishing. */
  finishedAfterSeconds: number;
  /** Walks of the stored cards (a run that finds values under an old key afterwards starts another). */
  walks: number;
  /** False when --timeout-seconds ended it first: the figures are then the progress so far. */
  finished: boolean;
}

/**
 * Rotates, then follows the workers' progress on the stored cards until every one is under the new key, or
 * --timeout-seconds: progress is kept per table in key_reencryption, its row made when a walk starts.
 */
async function rotateAndReencrypt(
  coreUrl: string,
  adminCredential: string,
  db: pg.Client,
): Promise<Reencryption> {
  const keyId = await rotate(coreUrl, adminCredential);
  const deadline = Date.now() + timeoutSeconds * 1000;
  let first: { rows: number; at: number } | undefined;
  let walks = 0;
  for (;;) {
    const timedOut = Date.now() >= deadline;
    const { rows } = await db.query<{ rows: string; at: number; finished: number | null; activated: number }>(
      `select r.rows_reencrypted as rows, extract(epoch from r.updated_at)::float8 as at,
         extract(epoch from r.finished_at)::float8 as finished, extract(epoch from k.activates_at)::float8 as activated
       from key_reencryption r join data_key k on k.id = r.key_id
       where r.key_id = $1 and r.table_name = 'stored_card'`,
      [keyId],
    );
    const progress = rows[0];
    if (progress) {
      const done = Number(progress.rows);
      // a first sighting, or a walk started again (its progress reset)
      if (!first || done < first.rows) {
        first = { rows: done, at: progress.at };
        walks++;
      }
      const finished = progress.finished !== null;
      if (finished || timedOut) {
        const end = progress.finished ?? progress.at;
        return {
          keyId,
          rows: done,
          cardsPerSecond: (done - first.rows) / Math.max(end - first.at, 0.001),
          startedAfterSeconds: first.at - progress.activated,
          finishedAfterSeconds: end - progress.activated,
          walks,
          finished,
        };
      }
    }
    if (timedOut) throw new Error(`no re-encryption of the stored cards began within ${timeoutSeconds} s`);
    await pause(250);
  }
}

let failed = false;
try {
  if (!softHsmAvailable()) throw new Error('SoftHSM2 is needed for the pkcs11 provider');
  token = newSoftHsmToken('paywire-bench');
  const hsmEnv = {
    KEY_PROVIDER: 'pkcs11',
    PKCS11_MODULE: token.module,
    PKCS11_TOKEN_LABEL: token.tokenLabel,
    PKCS11_PIN: token.pin,
    SOFTHSM2_CONF: token.conf,
  };
  await createPkcs11Kek({
    module: token.module,
    tokenLabel: token.tokenLabel,
    pin: token.pin,
    keyLabel: 'paywire-kek',
  });
  const fileDatabase = await startBenchDatabase('keys-bench-file');
  databases.push(fileDatabase);
  const hsmDatabase = await startBenchDatabase('keys-bench-pkcs11');
  databases.push(hsmDatabase);
  const file = await startService(fileDatabase, {
    KEY_PROVIDER: 'file',
    CARD_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  });
  const hsm = await startService(hsmDatabase, hsmEnv);

  // (a) plain sales, file and pkcs11 in turn
  const [onFile, onHsm] = (
    await file.loader.alternate([
      () => file.loader.load(file.url, file.processes, { authorization: file.authorization }),
      () => hsm.loader.load(hsm.url, hsm.processes, { authorization: hsm.authorization }),
    ])
  ).map(summarise) as [Figures, Figures];
  const cpuRatio = paywireCpu(onHsm) / paywireCpu(onFile);

  // (b) N vaulted cards, rotated under a sale load
  const db = new pg.Client({ connectionString: hsmDatabase.databaseUrl });
  await db.connect();
  let numbers: Map<number, string>;
  let seedSeconds: number;
  let reencryption: Reencryption | undefined;
  let duringRotation: Figures;
  let check: Awaited<ReturnType<typeof checkCards>>;
  try {
    const merchantId = hsmDatabase.merchant.id;
    const template = await fetch(hsm.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: hsm.authorization },
      body: JSON.stringify(saleBody()),
    });
    if (!template.ok) throw new Error(`the template sale answered ${template.status}`);
    const seeding = performance.now();
    numbers = await seedCards(hsmDatabase.databaseUrl, merchantId, hsmEnv, db);
    seedSeconds = (performance.now() - seeding) / 1000;
    log(`seeded ${numbers.size} vaulted cards in ${seedSeconds.toFixed(1)} s`);
    const adminCredential = await issueCaller(hsmDatabase.databaseUrl, {
      name: 'bench-operator',
      scope: 'admin',
    });
    duringRotation = summarise([
      await hsm.loader.load(hsm.url, hsm.processes, {
        authorization: hsm.authorization,
        seconds: timeoutSeconds + 60, // the rotation's own bound ends it first
        during: async () => {
          reencryption = await rotateAndReencrypt(hsm.coreUrl, adminCredential, db);
        },
      }),
    ]);
    if (!reencryption) throw new Error('the rotation did not finish');
    check = await checkCards(hsmDatabase.databaseUrl, merchantId, hsmEnv, reencryption.keyId, numbers, db);
  } finally {
    await db.end();
  }
  const missed = [
    cpuRatio > cpuTarget && `pkcs11 / file CPU per sale ${cpuRatio.toFixed(3)} > ${cpuTarget}`,
    onFile.errors + onHsm.errors > 0 && 'failed sales in the CPU runs',
    !reencryption.finished &&
      `re-encryption unfinished after --timeout-seconds ${timeoutSeconds} (the figures are its progress)`,
    duringRotation.errors > 0 && `${duringRotation.errors} failed sales during the rotation`,
    check.opened !== numbers.size && `${numbers.size - check.opened} seeded cards did not open`,
    check.underKey !== check.total && `${check.total - check.underKey} cards not under the new key`,
  ].filter((text): text is string => typeof text === 'string');
  process.stdout.write(
    [
      '',
      `Keys in an HSM, ${new Date().toISOString()}: plain AUTH_CAPTURE sales, JSON, ${connections} connections, ${seconds} s per run, median of ${rounds} alternating rounds; facade and core as child processes, each service on its own durable embedded PostgreSQL; pkcs11 = SoftHSM2 token`,
      '',
      '| plain sale, key provider | requests/s | p50 ms | p99 ms | errors |',
      '|---|---|---|---|---|',
      row('file', onFile),
      row('pkcs11 (SoftHSM2)', onHsm),
      row(`pkcs11, during the rotation of ${cards} vaulted cards`, duringRotation),
      '',
      '| figure | value |',
      '|---|---|',
      `| Paywire's CPU ms per sale (facade + core + PostgreSQL), file / pkcs11 | ${paywireCpu(onFile).toFixed(2)} / ${paywireCpu(onHsm).toFixed(2)} |`,
      `| **pkcs11 / file CPU per sale** | **${cpuRatio.toFixed(3)}** (target ${cpuTarget} or less) |`,
      `| vaulted cards seeded (sealed by the vault, pkcs11-wrapped key) | ${numbers.size} in ${seedSeconds.toFixed(1)} s |`,
      `| cards re-encrypted to key ${reencryption.keyId} | ${reencryption.rows}, walk started ${reencryption.startedAfterSeconds.toFixed(1)} s and ${reencryption.finished ? 'finished' : 'was still running'} ${reencryption.finishedAfterSeconds.toFixed(1)} s after the key's activation (${reencryption.walks} walk${reencryption.walks > 1 ? 's' : ''}) |`,
      `| **re-encryption, cards/s** | **${reencryption.cardsPerSecond.toFixed(0)}** |`,
      `| sales during the rotation: p99 / failed | ${Math.round(duringRotation.p99)} ms / ${duringRotation.errors} (target 0; non-2xx: ${statusList(duringRotation)}) |`,
      `| cards under the new key afterwards (sales' included) | ${check.underKey} of ${check.total} |`,
      `| seeded cards that open to their number under it | ${check.opened} of ${numbers.size} |`,
      '',
      cpuRow('file', onFile),
      cpuRow('pkcs11', onHsm),
      cpuRow('during the rotation', duringRotation),
      '',
      missed.length ? `MISSED: ${missed.join('; ')}` : 'every target met',
      '',
    ].join('\n'),
  );
  failed = missed.length > 0;
} catch (error) {
  failed = true;
  log(`benchmark failed: ${(error as Error).stack ?? String(error)}`);
} finally {
  await cleanup();
}
process.exit(failed ? 1 : 0);
