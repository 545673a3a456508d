import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Balancer, startBalancer } from '../support/balancer.ts';
import { saleBody } from '../support/http.ts';
import { freePort } from '../support/ports.ts';
import {
  newDatabase,
  newFacadeCredential,
  newMerchant,
  startFacade,
  type TestFacade,
  type TestMerchant,
} from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

/**
 * The server lifecycle (issue 16) with real processes: roles, /healthz and /readyz without credentials,
 * drain on SIGTERM under load, and a SEPA settlement run cut by SIGKILL finishing soon after the restart.
 */
const appPath = (app: string) => fileURLToPath(new URL(`../../apps/${app}/src/main.ts`, import.meta.url));

interface Process {
  child: ChildProcess;
  port: number;
  url(path: string): string;
  exited: Promise<number | null>;
}

const running: Process[] = [];

async function launch(app: 'core' | 'facade', env: Record<string, string>, port?: number): Promise<Process> {
  port ??= await freePort();
  const portVariable = app === 'core' ? 'CORE_PORT' : 'PORT';
  const child = spawn(process.execPath, [appPath(app)], {
    env: { ...process.env, HOST: '127.0.0.1', ...env, [portVariable]: String(port) },
    stdio: 'ignore',
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started: Process = { child, port, url: (path) => `http://127.0.0.1:${port}${path}`, exited };
  running.push(started);
  // Bounded generously: a loaded 2-core machine can take many seconds to start a Node process.
  await waitFor(
    `${app} to be ready`,
    () =>
      fetch(started.url('/readyz')).then(
        (response) => response.ok,
        () => false,
      ),
    60_000,
  );
  return started;
}

const get = async (url: string, headers: Record<string, string> = {}) => {
  const response = await fetch(url, { headers });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

let databaseUrl: string;
let coreEnv: Record<string, string>;
let facadeCredential: string;
let merchant: TestMerchant;
let db: pg.Pool;

beforeAll(async () => {
  databaseUrl = await newDatabase('paywire_lifecycle');
  coreEnv = {
    DATABASE_URL: databaseUrl,
    CARD_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    DATABASE_POOL_SIZE: '8',
  };
  facadeCredential = await newFacadeCredential(databaseUrl);
  merchant = await newMerchant(databaseUrl);
  db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
});

afterAll(async () => {
  for (const { child } of running) if (child.exitCode === null) child.kill('SIGKILL');
  await Promise.all(running.map((started) => started.exited));
  await db?.end();
});

describe('roles and health', () => {
  // Three processes started and drained: on a loaded 2-core machine that alone can take most of a minute.
  it('answers /healthz and /readyz without credentials; a worker-role core serves no procedures', {
    timeout: 90_000,
  }, async () => {
    const api = await launch('core', { ...coreEnv, CORE_ROLE: 'api' });
    const worker = await launch('core', { ...coreEnv, CORE_ROLE: 'worker' });
    const facade = await launch('facade', {
      CORE_URL: api.url('/trpc'),
      CORE_CREDENTIAL: facadeCredential,
      LOG_REQUESTS: 'false',
    });
    for (const started of [api, worker, facade]) {
      expect(await get(started.url('/healthz'))).toEqual({ status: 200, body: { status: 'ok' } });
      expect((await get(started.url('/readyz'))).body).toEqual({ status: 'ready' });
    }
    // Health is the only thing served without a credential: procedures still are not.
    expect((await get(api.url('/trpc/callers.whoami'))).status).toBe(401);
    const asFacade = { authorization: `Bearer ${facadeCredential}` };
    expect((await get(api.url('/trpc/callers.whoami'), asFacade)).status).toBe(200);
    expect((await get(worker.url('/trpc/callers.whoami'), asFacade)).status).toBe(404);
    // The facade's health is outside /services/2 and needs no Basic credential either.
    expect((await get(facade.url('/services/2/transactions/1'))).status).toBe(401);

    // The facade's readiness follows core's: core gone, the facade is alive but not ready.
    api.child.kill('SIGTERM');
    expect(await api.exited).toBe(0);
    await waitFor('facade not ready', async () => (await get(facade.url('/readyz'))).status === 503);
    expect(await get(facade.url('/healthz'))).toEqual({ status: 200, body: { status: 'ok' } });
    worker.child.kill('SIGTERM');
    facade.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(await facade.exited).toBe(0);
  });
});

describe('drain', () => {
  let facade: TestFacade;
  const facadeLog: string[] = [];

  afterAll(async () => {
    await facade?.close();
  });

  it('on SIGTERM fails readiness, answers every sale in flight, exits 0; then the facade answers 503', async () => {
    const core = await launch('core', { ...coreEnv, SHUTDOWN_DELAY_SECONDS: '1' });
    facade = await startFacade(core.url('/trpc'), facadeCredential, (line) => facadeLog.push(line));
    const body = JSON.stringify(saleBody({ amount: 10 }));
    const statuses: number[] = [];
    const unavailable: { retryAfter: string | null; body: unknown }[] = [];
    // Bounded by time (a count of sales could all be sold before core is gone on a fast machine), and each
    // client stops at its second 503 (core gone for good).
    const sellUntil = Date.now() + 90_000;
    const sell = async () => {
      let refused = 0;
      while (Date.now() < sellUntil && refused < 2) {
        const response = await fetch(`${facade.baseUrl}/transactions`, {
          method: 'POST',
          headers: { authorization: merchant.authorization, 'content-type': 'application/json' },
          body,
        });
        statuses.push(response.status);
        const answer = await response.json();
        if (response.status === 503) {
          refused++;
          unavailable.push({ retryAfter: response.headers.get('retry-after'), body: answer });
        }
      }
    };
    const load = Promise.all(Array.from({ length: 12 }, sell));
    await waitFor('sales under way', () => statuses.filter((status) => status === 200).length >= 40);
    core.child.kill('SIGTERM');
    // Readiness fails at once, while the listener still accepts for the delay.
    await waitFor('core not ready', async () => {
      const readiness = await get(core.url('/readyz'));
      return readiness.status === 503 && readiness.body.reason === 'draining';
    });
    expect(await core.exited).toBe(0);
    await load;

    // Every sale either completed (200, and charged) or never reached core (503): none failed half-way.
    expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
    const { rows } = await db.query<{ count: number }>(
      'select count(*)::int as count from card_transaction where merchant_id = $1',
      [merchant.id],
    );
    expect(rows[0]?.count).toBe(statuses.filter((status) => status === 200).length);
    expect(unavailable.length).toBeGreaterThan(0);
    for (const refusal of unavailable) {
      expect(refusal.retryAfter).toBe('5');
      expect(refusal.body).toEqual({
        message: [
          {
            errorName: 'SERVICE_UNAVAILABLE',
            code: 10503,
            description: 'the service is temporarily unavailable; retry after the delay given',
          },
        ],
      });
    }
    // Logged once per interval, not once per refused request.
    const unreachableLines = facadeLog.filter((line) => line.includes('core unreachable'));
    expect(unreachableLines.length).toBeGreaterThan(0);
    expect(unreachableLines.length).toBeLessThan(unavailable.length);
    expect(facadeLog.filter((line) => line.includes('unexpected error'))).toEqual([]);
  });
});

describe('jobs recover fast', () => {
  it('a SEPA settlement run cut by SIGKILL finishes within a minute of the restart', {
    timeout: 90_000,
  }, async () => {
    let core = await launch('core', coreEnv);
    const facade = await startFacade(core.url('/trpc'), facadeCredential);
    try {
      const sepaMerchant = await newMerchant(databaseUrl);
      const as = { authorization: sepaMerchant.authorization, 'content-type': 'application/json' };
      const created = await fetch(`${facade.baseUrl}/alt-transactions`, {
        method: 'POST',
        headers: as,
        body: JSON.stringify({
          sepaDirectDebitTransaction: { iban: 'DE89370400440532013000' },
          payerInfo: { firstName: 'Ada', lastName: 'Lovelace' },
          amount: 10.5,
          currency: 'EUR',
          authorizedByShopper: true,
        }),
      });
      expect(created.status).toBe(200);
      const { transactionId } = (await created.json()) as { transactionId: string };
      const status = async () => {
        const reply = await fetch(`${facade.baseUrl}/alt-transactions/${transactionId}`, { headers: as });
        return ((await reply.json()) as { processingInfo: { processingStatus: string } }).processingInfo
          .processingStatus;
      };
      expect(await status()).toBe('PENDING');

      // Hold the debits so the run the clock advance starts stays active, then kill core under it.
      const holder = new pg.Client({ connectionString: databaseUrl });
      await holder.connect();
      await holder.query('begin');
      await holder.query('lock table sepa_debit in exclusive mode');
      const advanced = await fetch(`${facade.baseUrl}/sandbox/clock`, {
        method: 'PUT',
        headers: as,
        body: JSON.stringify({ advanceBy: 'PT5M' }),
      });
      expect(advanced.status).toBe(200);
      await waitFor('a settlement run active', async () => {
        const { rows } = await db.query(
          "select 1 from pgboss.job where name = 'sepa-settlement' and state = 'active'",
        );
        return rows.length > 0;
      });
      core.child.kill('SIGKILL');
      await core.exited;
      await holder.query('rollback');
      await holder.end();

      const restarted = Date.now();
      core = await launch('core', coreEnv, core.port);
      await waitFor(
        'the debit settled after the restart',
        async () => (await status()) !== 'PENDING',
        60_000,
        500,
      );
      const seconds = (Date.now() - restarted) / 1000;
      console.info(`settled ${seconds.toFixed(1)} s after the restart`);
      expect(await status()).toBe('SUCCESS');
    } finally {
      await facade.close();
    }
  });
});

describe('a clone in a private directory', () => {
  const root = process.getuid?.() === 0;
  it.skipIf(!root)(
    'starts with embedded PostgreSQL as root from a mode 700 directory and makes a sale',
    { timeout: 90_000 },
    async () => {
      // The clone: sources copied, node_modules hard-linked (cheap, and physically inside, as npm ci puts
      // it), in a mode 700 directory PostgreSQL's OS user cannot enter. .data/ is ignored by git.
      const repo = fileURLToPath(new URL('../..', import.meta.url));
      mkdirSync(path.join(repo, '.data'), { recursive: true });
      const privateDir = mkdtempSync(path.join(repo, '.data', 'private-'));
      chmodSync(privateDir, 0o700);
      const clone = path.join(privateDir, 'clone');
      mkdirSync(clone);
      for (const entry of ['package.json', 'apps', 'packages', 'infra'])
        execFileSync('cp', ['-a', path.join(repo, entry), clone]);
      execFileSync('cp', ['-al', path.join(repo, 'node_modules'), clone]);
      const [port, corePort, postgresPort] = [await freePort(), await freePort(), await freePort()];
      const launcher = spawn(process.execPath, [path.join(clone, 'infra', 'start.ts')], {
        cwd: clone,
        env: {
          ...process.env,
          PORT: String(port),
          CORE_PORT: String(corePort),
          EMBEDDED_POSTGRES_PORT: String(postgresPort),
          DATABASE_URL: '',
          CARD_ENCRYPTION_KEY: '',
        },
        stdio: 'ignore',
      });
      const exited = new Promise<number | null>((resolve) => launcher.once('exit', (code) => resolve(code)));
      const dataLink = path.join(clone, '.data', 'postgres');
      try {
        await waitFor(
          'the clone to be ready',
          () =>
            fetch(`http://127.0.0.1:${port}/readyz`).then(
              (response) => response.ok,
              () => false,
            ),
          60_000,
          250,
        );
        const sale = await fetch(`http://127.0.0.1:${port}/services/2/transactions`, {
          method: 'POST',
          headers: {
            authorization: `Basic ${Buffer.from('sandbox:sandbox-password').toString('base64')}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify(saleBody()),
        });
        expect(sale.status).toBe(200);
        // PostgreSQL's data went where its user reaches it; the clone's data dir points there.
        expect(realpathSync(dataLink)).toMatch(/^\/var\/lib\/paywire\/embedded-postgres\/data-[0-9a-f]{16}$/);
        launcher.kill('SIGTERM');
        expect(await exited).toBe(0);
      } finally {
        if (launcher.exitCode === null) launcher.kill('SIGKILL');
        await exited;
        const data = lstatSync(dataLink, { throwIfNoEntry: false })?.isSymbolicLink()
          ? realpathSync(dataLink)
          : undefined;
        if (data) rmSync(data, { recursive: true, force: true });
        rmSync(privateDir, { recursive: true, force: true });
      }
    },
  );
});

describe('rolling restart', () => {
  it('restarts one of two cores and one of two facades under load without a failed request', {
    timeout: 240_000,
  }, async () => {
    // Kubernetes: the preStop pause. Long enough for the balancer's probe (every 100 ms, itself slowed by a
    // loaded machine) to stop sending new connections before idle ones close: a request that reached a
    // socket just as it closed would be lost at the socket, as it would be behind a real Service.
    const drainEnv = { SHUTDOWN_DELAY_SECONDS: '3' };
    const cores = [
      await launch('core', { ...coreEnv, ...drainEnv }),
      await launch('core', { ...coreEnv, ...drainEnv }),
    ];
    const coreBalancer = await startBalancer(cores.map((core) => core.port));
    const facadeEnv = {
      ...drainEnv,
      CORE_URL: `http://127.0.0.1:${coreBalancer.port}/trpc`,
      CORE_CREDENTIAL: facadeCredential,
      LOG_REQUESTS: 'false',
    };
    await waitFor('a core behind the balancer', () =>
      fetch(`http://127.0.0.1:${coreBalancer.port}/readyz`).then(
        (response) => response.ok,
        () => false,
      ),
    );
    const facades = [await launch('facade', facadeEnv), await launch('facade', facadeEnv)];
    const facadeBalancer = await startBalancer(facades.map((facade) => facade.port));
    const rollingMerchant = await newMerchant(databaseUrl);
    let rolling = true;
    try {
      const failures: string[] = [];
      let succeeded = 0;
      const body = JSON.stringify(saleBody({ amount: 3 }));
      // Bounded by time, not by a count of sales: a fast machine would sell any count before the restarts
      // were over, and the wait for sales after them would find the sellers gone.
      const sellUntil = Date.now() + 200_000;
      const sell = async () => {
        while (rolling && Date.now() < sellUntil) {
          try {
            const response = await fetch(`http://127.0.0.1:${facadeBalancer.port}/services/2/transactions`, {
              method: 'POST',
              headers: { authorization: rollingMerchant.authorization, 'content-type': 'application/json' },
              body,
            });
            const text = await response.text();
            if (response.status === 200) succeeded++;
            else failures.push(`status ${response.status}: ${text}`); // the body names which refusal it was
          } catch (error) {
            failures.push(String((error as Error).cause ?? error));
          }
        }
      };
      const load = Promise.all(Array.from({ length: 8 }, sell));
      // SIGTERM the first of the pair, wait for its clean exit, start its replacement and put it behind the balancer.
      const roll = async (
        kind: 'core' | 'facade',
        list: Process[],
        balancer: Balancer,
        env: Record<string, string>,
      ) => {
        const old = list[0] as Process;
        old.child.kill('SIGTERM');
        expect(await old.exited).toBe(0);
        list[0] = await launch(kind, env);
        balancer.backends = list.map((started) => started.port);
      };
      // Bounded for a machine loaded many times over (CI beside another suite): a failed sale ends the wait
      // at once, with its reason.
      const untilSold = (what: string, count: number) =>
        waitFor(
          what,
          () => {
            expect(failures).toEqual([]);
            return succeeded >= count;
          },
          60_000,
        );
      await untilSold('sales under way', 50);
      await roll('core', cores, coreBalancer, { ...coreEnv, ...drainEnv });
      await roll('facade', facades, facadeBalancer, facadeEnv);
      await untilSold('sales after the restarts', succeeded + 100);
      rolling = false;
      await load;
      expect(failures).toEqual([]);
      const { rows } = await db.query<{ count: number }>(
        'select count(*)::int as count from card_transaction where merchant_id = $1',
        [rollingMerchant.id],
      );
      expect(rows[0]?.count).toBe(succeeded);
    } finally {
      rolling = false;
      await facadeBalancer.close();
      await coreBalancer.close();
    }
  });
});
