import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { createPaywireClient } from '@paywire/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../apps/core/src/merchants/service.ts';
import { createPasswordGate } from '../../apps/core/src/security/password-gate.ts';
import { saveMerchant } from '../../infra/merchants.ts';
import { type CallOptions, client, expectStatus, type Reply } from '../support/http.ts';
import {
  operatorCliEnv,
  type Stack,
  startFacade,
  startStack,
  type TestFacade,
  type TestMerchant,
  testPasswordCost,
} from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

// ---------------------------------------------------------------------------------------------------------
// Logins that resist guessing (issue 12): exact usernames, unusable credentials refused without an echo,
// failed logins limited per username at a client address and per address (429 + Retry-After, state in PostgreSQL),
// hashing bounded so guessing cannot starve real logins, and a credential cache that a password change
// ends on every facade within a second. Real HTTP, real core, real PostgreSQL.
// ---------------------------------------------------------------------------------------------------------

const run = promisify(execFile);
const merchantCli = (env: Record<string, string>, ...args: string[]) =>
  run(process.execPath, ['infra/merchant.ts', ...args], { env: { ...process.env, ...env } });
let stack: Stack;
/** A facade behind one trusted proxy: X-Forwarded-For names the client. */
let proxied: TestFacade;
/** Counts core's authenticate calls made by `counted`, a facade that reaches core through it. */
let coreCalls: { authenticate: number; server: Server };
let counted: TestFacade;

const basic = (credential: string) => `Basic ${Buffer.from(credential, 'utf8').toString('base64')}`;
const withHeader = (authorization: string): TestMerchant => ({
  id: 0,
  username: '',
  password: '',
  authorization,
});

/** A plain HTTP hop to core that counts the login checks passing through it. */
async function countingHop(target: string) {
  const calls = { authenticate: 0, server: createServer() };
  const upstream = new URL(target);
  calls.server.on('request', (incoming, outgoing) => {
    if (incoming.url?.includes('merchants.authenticate')) calls.authenticate++;
    const forwarded = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: incoming.url,
        method: incoming.method,
        headers: incoming.headers,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy()); // core gone: the facade sees a dropped connection
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => calls.server.listen(0, '127.0.0.1', resolve));
  const { port } = calls.server.address() as AddressInfo;
  return { calls, url: `http://127.0.0.1:${port}${upstream.pathname}` };
}

beforeAll(async () => {
  stack = await startStack();
  proxied = await startFacade(stack.core.url, stack.facadeCredential, undefined, { trustedProxyHops: 1 });
  const hop = await countingHop(stack.core.url);
  coreCalls = hop.calls;
  counted = await startFacade(hop.url, stack.facadeCredential);
});

afterAll(async () => {
  await counted?.close();
  await new Promise((resolve) => coreCalls?.server.close(resolve));
  await proxied?.close();
  await stack?.close();
});

/** GET /sandbox/clock on a facade, with an Authorization header and optionally a client address. */
async function login(baseUrl: string, authorization: string, options: { from?: string; xml?: boolean } = {}) {
  const api = client({ ...stack, baseUrl });
  const headers: Record<string, string> = options.from ? { 'x-forwarded-for': options.from } : {};
  const call: CallOptions = { merchant: withHeader(authorization), headers };
  if (options.xml) call.accept = 'application/xml';
  return api.get('/sandbox/clock', call);
}

function expectRefused(reply: Reply, format: 'json' | 'xml' = 'json') {
  expectStatus(reply, 401);
  expect(reply.headers.get('content-type')).toContain(format);
  expect(reply.body.message[0]).toMatchObject({
    errorName: 'UNAUTHORIZED',
    code: format === 'json' ? 10401 : '10401',
  });
}

async function failuresOf(
  key: string,
): Promise<{ failures: number; blocked_until: Date | null } | undefined> {
  const { rows } = await stack.db.query('select failures, blocked_until from login_failure where key = $1', [
    key,
  ]);
  return rows[0];
}

// ---------------------------------------------------------------------------------------------------------

describe('credentials are compared exactly and never echoed', () => {
  it('refuses the username with a space before or after it, and accepts it exactly', async () => {
    const { username, password } = await stack.newMerchant();
    expectRefused(await login(stack.baseUrl, basic(` ${username}:${password}`)));
    expectRefused(await login(stack.baseUrl, basic(`${username} :${password}`)));
    expectRefused(await login(stack.baseUrl, basic(`${username.toUpperCase()}:${password}`)));
    expectStatus(await login(stack.baseUrl, basic(`${username}:${password}`)), 200);
  });

  const unusable: [string, (m: TestMerchant) => string][] = [
    ['an empty password', (m) => `${m.username}:`],
    ['an empty username', (m) => `:${m.password}`],
    ['a password of 201 characters', (m) => `${m.username}:${'p'.repeat(201)}`],
    ['a password of 10,000 characters', (m) => `${m.username}:${'q'.repeat(10_000)}`],
    ['a username of 101 characters', (m) => `${'u'.repeat(101)}:${m.password}`],
  ];
  it.each(unusable)('answers 401 for %s, in JSON and XML, without echoing it', async (_name, credential) => {
    const merchant = await stack.newMerchant();
    for (const xml of [false, true]) {
      const reply = await login(stack.baseUrl, basic(credential(merchant)), { xml });
      expectRefused(reply, xml ? 'xml' : 'json');
      expect(reply.text).not.toContain('messageValue');
      expect(reply.text).not.toContain('message-value');
      expect(reply.text).not.toMatch(/ppppp|qqqqq|uuuuu/);
      if (merchant.password) expect(reply.text).not.toContain(merchant.password);
    }
  });

  it('refuses an unusable credential at core too, as a refusal and not a validation error that echoes', async () => {
    const passwords = createPasswordGate();
    const em = stack.core.services.orm.em.fork();
    for (const attempt of [
      { username: stack.merchant.username, password: 'x'.repeat(5000) },
      { username: 'u'.repeat(5000), password: stack.merchant.password, clientAddress: '192.0.2.250' },
      { username: `${stack.merchant.username}\u0000`, password: stack.merchant.password },
    ]) {
      expect(await authenticate({ em, passwords, passwordCost: testPasswordCost }, attempt)).toEqual({
        outcome: 'refused',
      });
    }
    expect(await failuresOf('address:192.0.2.250')).toMatchObject({ failures: 1 }); // counted all the same
  });
});

// ---------------------------------------------------------------------------------------------------------

describe('the credential cache', () => {
  /** Base64 spellings of the same bytes: the unused low bits of the last character, padding or none, casing. */
  function spellings(credential: string): string[] {
    const canonical = Buffer.from(credential, 'utf8').toString('base64');
    expect(canonical.endsWith('==')).toBe(true); // four unused bits: sixteen last characters decode the same
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const body = canonical.slice(0, -3);
    const last = alphabet.indexOf(canonical.at(-3) ?? '');
    const texts: string[] = [];
    for (let low = 0; low < 16; low++) {
      const text = body + alphabet[(last & ~15) | low];
      texts.push(`Basic ${text}==`, `basic ${text}`, `BASIC ${text}==`);
    }
    return texts;
  }

  it('keys verdicts on the decoded credential: 48 base64 spellings of one credential cost one check in core', async () => {
    const merchant = await stack.newMerchant();
    let password = merchant.password;
    while (Buffer.byteLength(`${merchant.username}:${password}`) % 3 !== 1) password += 'x';
    await saveMerchant(stack.databaseUrl, merchant.username, password, testPasswordCost);
    const headers = spellings(`${merchant.username}:${password}`);
    expect(new Set(headers).size).toBe(48);
    for (const header of headers) {
      expect(Buffer.from(header.slice(6).replace(/=+$/, ''), 'base64').toString()).toBe(
        `${merchant.username}:${password}`,
      );
    }
    const before = coreCalls.authenticate;
    for (const header of headers) expectStatus(await login(counted.baseUrl, header), 200);
    expect(coreCalls.authenticate - before).toBe(1);
  });

  it('does not cache refusals: each wrong password is checked in core', async () => {
    const merchant = await stack.newMerchant();
    const before = coreCalls.authenticate;
    for (let attempt = 0; attempt < 3; attempt++) {
      expectRefused(await login(counted.baseUrl, basic(`${merchant.username}:wrong`)));
    }
    expect(coreCalls.authenticate - before).toBe(3);
  });
});

// ---------------------------------------------------------------------------------------------------------

describe('failed logins are limited', () => {
  it('blocks a username at one address after five failures with 429 and Retry-After, doubling the wait', async () => {
    const merchant = await stack.newMerchant();
    const wrong = basic(`${merchant.username}:wrong-password`);
    const guesser = '198.51.100.1';
    for (let attempt = 0; attempt < 6; attempt++) {
      expectRefused(await login(proxied.baseUrl, wrong, { from: guesser }));
    }
    // The sixth failure blocked the username at that address for a second: even the right password waits there.
    for (const xml of [false, true]) {
      const limited = await login(proxied.baseUrl, merchant.authorization, { from: guesser, xml });
      expectStatus(limited, 429);
      expect(limited.body.message[0]).toMatchObject({ errorName: 'TOO_MANY_REQUESTS' });
      expect(limited.headers.get('content-type')).toContain(xml ? 'xml' : 'json');
      expect(Number(limited.headers.get('retry-after'))).toBe(1);
    }
    const key = `login:${guesser}:${merchant.username}`;
    expect(await failuresOf(key)).toMatchObject({ failures: 6 }); // a limited attempt is not a failure

    // Once the block lapses, the next failure blocks for two seconds.
    await waitFor('the first block to lapse', async () => {
      const row = await failuresOf(key);
      return row?.blocked_until && row.blocked_until.getTime() < Date.now() - 50;
    });
    expectRefused(await login(proxied.baseUrl, wrong, { from: guesser }));
    const longer = await login(proxied.baseUrl, merchant.authorization, { from: guesser });
    expectStatus(longer, 429);
    expect(Number(longer.headers.get('retry-after'))).toBe(2);
    // Meanwhile the merchant's own address is not refused.
    expectStatus(await login(proxied.baseUrl, merchant.authorization, { from: '198.51.100.99' }), 200);
  });

  it('cannot lock a merchant out: 1,000 guesses from 50 addresses, then its own login succeeds first time', async () => {
    const merchant = await stack.newMerchant();
    const wrong = basic(`${merchant.username}:not-the-password`);
    const answers = new Map<number, number>();
    // 50 guessers at once, 20 guesses each, one after another per address.
    await Promise.all(
      Array.from({ length: 50 }, async (_, guesser) => {
        for (let guess = 0; guess < 20; guess++) {
          const reply = await login(proxied.baseUrl, wrong, { from: `100.70.${guesser}.1` });
          answers.set(reply.status, (answers.get(reply.status) ?? 0) + 1);
        }
      }),
    );
    expect([...answers.values()].reduce((sum, count) => sum + count, 0)).toBe(1000);
    expect([...answers.keys()].sort()).toEqual([401, 429]); // refused, then limited: the throttle was at work
    const own = await login(proxied.baseUrl, merchant.authorization, { from: '192.0.2.33' });
    expectStatus(own, 200);
  });

  it('answers a blocked attempt from the table alone, before any hash', async () => {
    const merchant = await stack.newMerchant();
    await stack.db.query(
      `insert into login_failure (key, failures, free_failures, last_failure_at, blocked_until)
       values ($1, 9, 5, now(), now() + interval '1 minute')`,
      [`login::${merchant.username}`],
    );
    const gate = createPasswordGate();
    let hashes = 0;
    const counting = {
      run<T>(lane: string, hash: () => Promise<T>) {
        hashes++;
        return gate.run(lane, hash);
      },
    };
    const em = stack.core.services.orm.em.fork();
    const attempt = { username: merchant.username, password: merchant.password };
    const verdict = await authenticate({ em, passwords: counting, passwordCost: testPasswordCost }, attempt);
    expect(verdict).toMatchObject({ outcome: 'limited' });
    expect(verdict.outcome === 'limited' && verdict.retryAfterSeconds).toBeGreaterThanOrEqual(59);
    expect(hashes).toBe(0);
    // not vacuous: the same call for an unblocked merchant does hash
    expect(
      await authenticate(
        { em, passwords: counting, passwordCost: testPasswordCost },
        { ...attempt, username: stack.merchant.username },
      ),
    ).toEqual({
      outcome: 'refused',
    });
    expect(hashes).toBe(1);
  });

  it('blocks a client address after twenty failures, whatever the usernames; other addresses go on', async () => {
    const merchant = await stack.newMerchant();
    const address = `203.0.113.${1 + ((randomBytes(1)[0] ?? 0) % 200)}`;
    for (let attempt = 0; attempt < 21; attempt++) {
      const guess = basic(`guess_${randomBytes(4).toString('hex')}:password${attempt}`);
      expectRefused(await login(proxied.baseUrl, guess, { from: address }));
    }
    const blocked = await login(proxied.baseUrl, merchant.authorization, { from: address });
    expectStatus(blocked, 429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expectStatus(await login(proxied.baseUrl, merchant.authorization, { from: '192.0.2.10' }), 200);
  });

  it('takes the address the trusted proxy appended, not one the client wrote before it', async () => {
    const merchant = await stack.newMerchant();
    const wrong = basic(`${merchant.username}:wrong`);
    await login(proxied.baseUrl, wrong, { from: '10.9.9.9, 192.0.2.77' });
    expect(await failuresOf('address:192.0.2.77')).toMatchObject({ failures: 1 });
    expect(await failuresOf('address:10.9.9.9')).toBeUndefined();
  });

  it('forgives a username its failures at an address once the right password is given there', async () => {
    const merchant = await stack.newMerchant();
    expectRefused(await login(stack.baseUrl, basic(`${merchant.username}:wrong`)));
    const key = `login:127.0.0.1:${merchant.username}`;
    expect(await failuresOf(key)).toMatchObject({ failures: 1 });
    expectStatus(await login(stack.baseUrl, merchant.authorization), 200);
    expect(await failuresOf(key)).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------------------

describe('guessing does not starve real logins', () => {
  it('keeps a real first login fast while 50 guesses a second arrive from ten addresses', async () => {
    const merchants = await Promise.all([1, 2, 3, 4, 5, 6].map(() => stack.newMerchant()));
    const timed = async (merchant: TestMerchant) => {
      const started = performance.now();
      const reply = await login(proxied.baseUrl, merchant.authorization, { from: '192.0.2.200' });
      return { reply, ms: Math.round(performance.now() - started) };
    };
    // The same first logins without guessing, on this machine now: the yardstick for the ones below.
    const quiet: number[] = [];
    for (const merchant of merchants.slice(3)) {
      const { reply, ms } = await timed(merchant);
      expectStatus(reply, 200);
      quiet.push(ms);
    }
    const answers = new Map<number, number>();
    let stop = false;
    const attack = (async () => {
      const sent: Promise<void>[] = [];
      for (let guess = 0; guess < 200 && !stop; guess++) {
        const from = `100.64.0.${guess % 10}`;
        const credential = basic(`bot_${randomBytes(4).toString('hex')}:guess${guess}`);
        sent.push(
          login(proxied.baseUrl, credential, { from }).then((reply) => {
            answers.set(reply.status, (answers.get(reply.status) ?? 0) + 1);
          }),
        );
        await new Promise((resolve) => setTimeout(resolve, 20)); // 50 a second
      }
      await Promise.all(sent);
    })();
    await waitFor('the guessing to be under way', () => (answers.get(401) ?? 0) >= 5);
    const timings: number[] = [];
    const replies: Reply[] = [];
    try {
      for (const merchant of merchants.slice(0, 3)) {
        const { reply, ms } = await timed(merchant);
        replies.push(reply);
        timings.push(ms);
      }
    } finally {
      stop = true;
      await attack;
    }
    for (const reply of replies) expectStatus(reply, 200);
    console.info(
      `first logins: ${quiet.join(', ')} ms quiet, ${timings.join(', ')} ms during 50 guesses/s; guesses answered: ${JSON.stringify(Object.fromEntries(answers))}`,
    );
    // The gate's claim is 0.5 s on a quiet machine; asserted generously, and relative to this machine's pace.
    const bound = Math.max(1500, 4 * Math.max(...quiet));
    for (const ms of timings) expect(ms).toBeLessThan(bound);
    expect([...answers.keys()].every((status) => status === 401 || status === 429)).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------------------

describe('a password change', () => {
  it('ends the old password and lets the new one in on two facades within a second', async () => {
    const second = await startFacade(stack.core.url, stack.facadeCredential);
    try {
      const merchant = await stack.newMerchant();
      const newPassword = randomBytes(12).toString('base64url');
      const oldHeader = merchant.authorization;
      const newHeader = basic(`${merchant.username}:${newPassword}`);
      const facades = [stack.baseUrl, second.baseUrl];
      for (const baseUrl of facades) {
        expectStatus(await login(baseUrl, oldHeader), 200); // now cached on both
        expectRefused(await login(baseUrl, newHeader)); // refused on both, before the change
      }
      await saveMerchant(stack.databaseUrl, merchant.username, newPassword, testPasswordCost); // as `npm run merchant` does
      const changedAt = performance.now();
      // When each facade last accepted the old password, by when the request was sent (ms after the change):
      // a verdict is served only on a generation core confirmed within the last second, so never later than
      // one second after the change, however slow the machine is to answer.
      const lastAccepted = await Promise.all(
        facades.map(async (baseUrl) => {
          // the new password works at once: refusals are never cached
          expectStatus(await login(baseUrl, newHeader), 200);
          let last = -1;
          await waitFor(
            'the old password refused',
            async () => {
              const sentAt = Math.round(performance.now() - changedAt);
              const old = await login(baseUrl, oldHeader);
              if (old.status === 200) last = sentAt;
              return old.status === 401;
            },
            10_000,
          );
          return last;
        }),
      );
      console.info(`old password last accepted ${lastAccepted.join(' and ')} ms after the change`);
      for (const ms of lastAccepted) expect(ms).toBeLessThan(1000);
    } finally {
      await second.close();
    }
  });

  it('cannot be missed while core is unreachable: a verdict core has not confirmed for a second is not used', async () => {
    const hop = await countingHop(stack.core.url);
    const facade = await startFacade(hop.url, stack.facadeCredential);
    try {
      const merchant = await stack.newMerchant();
      expectStatus(await login(facade.baseUrl, merchant.authorization), 200); // cached
      hop.calls.server.close();
      hop.calls.server.closeAllConnections();
      const cutAt = performance.now();
      let lastAccepted = -1;
      const refused = await waitFor(
        'the cached verdict to be dropped',
        async () => {
          const sentAt = Math.round(performance.now() - cutAt);
          const reply = await login(facade.baseUrl, merchant.authorization);
          if (reply.status === 200) lastAccepted = sentAt;
          return reply.status !== 200 && reply;
        },
        10_000,
      );
      expect(refused.status).toBeGreaterThanOrEqual(500); // core cannot be asked: an error, not a guess
      expect(lastAccepted).toBeLessThan(1000);
    } finally {
      await facade.close();
    }
  });

  it('is hashed again at the current cost on the next successful login', async () => {
    const merchant = await stack.newMerchant();
    await saveMerchant(stack.databaseUrl, merchant.username, merchant.password, { N: 2 ** 9, r: 8, p: 1 });
    const storedHash = async () =>
      (await stack.db.query('select password_hash from merchant where id = $1', [merchant.id])).rows[0]
        ?.password_hash as string;
    expect((await storedHash()).split('$')[1]).toBe('512');
    expectRefused(await login(stack.baseUrl, basic(`${merchant.username}:not-the-password`)));
    expect((await storedHash()).split('$')[1]).toBe('512'); // a wrong password changes nothing
    expectStatus(await login(stack.baseUrl, merchant.authorization), 200);
    expect((await storedHash()).split('$')[1]).toBe(String(testPasswordCost.N));
    expectStatus(await login(counted.baseUrl, merchant.authorization), 200); // core checks the new hash
  });

  it('must be at least 12 characters wherever it is set', async () => {
    await expect(
      saveMerchant(stack.databaseUrl, 'short_password', 'elevenchars', testPasswordCost),
    ).rejects.toThrow(/12-200 characters/);
    expect((await stack.db.query("select 1 from merchant where username = 'short_password'")).rowCount).toBe(
      0,
    );
    // the operator CLI refuses it before calling core, with its usage (exit 2)
    const refusal = async (...args: string[]) => {
      const cli = await merchantCli(await operatorCliEnv(stack), 'create', ...args).catch(
        (error: { code: number; stderr: string }) => error,
      );
      expect('code' in cli && cli.code).toBe(2);
      return cli.stderr;
    };
    expect(await refusal('--username', 'short_password', '--password', 'elevenchars')).toContain(
      '12+ characters',
    );
    // a password that begins with "-" reads as an option: a usage error that says how to give it, no trace
    const dashed = await refusal('--username', 'dashed_password', '--password', '-long-enough-password');
    expect(dashed).toContain('--password=<password>');
    expect(dashed).not.toContain('    at ');
  });

  it('is set by the operator CLI through core with an admin credential (npm run merchant), audited as the operator', async () => {
    const operator = await operatorCliEnv(stack); // no DATABASE_URL: core's merchants.save admin procedure
    const username = `cli_${randomBytes(4).toString('hex')}`;
    const first = `-${randomBytes(12).toString('base64url')}`; // a leading "-", given in the form that takes it
    const created = await merchantCli(operator, 'create', '--username', username, `--password=${first}`);
    const id = Number(/\(id (\d+)\)/.exec(created.stdout)?.[1]);
    expect(id).toBeGreaterThan(0);
    expectStatus(await login(stack.baseUrl, basic(`${username}:${first}`)), 200);
    const second = randomBytes(12).toString('hex'); // never a leading "-"
    await merchantCli(operator, 'create', '--username', username, '--password', second); // a reset
    expectStatus(await login(stack.baseUrl, basic(`${username}:${second}`)), 200);
    await waitFor('the old password to be refused', async () => {
      return (await login(stack.baseUrl, basic(`${username}:${first}`))).status === 401;
    });
    const { rows } = await stack.db.query<{ action: string; actor_kind: string; actor: string }>(
      `select action, actor_kind, actor from audit_event where object = $1 and action = 'password.set' order by seq`,
      [`merchant:${id}`],
    );
    const byOperator = {
      action: 'password.set',
      actor_kind: 'operator',
      actor: expect.stringMatching(/^operator-[0-9a-f]+ \(pwc_\d+\)$/),
    };
    expect(rows).toEqual([byOperator, byOperator]);
    expect(created.stdout + created.stderr).not.toContain(first);
  }, 60_000); // the CLI runs as processes of its own

  it('is not set by the operator CLI with database access alone, nor by any credential but an admin one', async () => {
    const args = ['create', '--username', 'db_only_merchant', '--password', 'long-enough-password'];
    await expect(
      merchantCli({ DATABASE_URL: stack.databaseUrl, PAYWIRE_ADMIN_CREDENTIAL: '' }, ...args),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('PAYWIRE_ADMIN_CREDENTIAL is not set'),
    });
    const facadeScope = { CORE_URL: stack.core.url, PAYWIRE_ADMIN_CREDENTIAL: stack.facadeCredential };
    await expect(merchantCli(facadeScope, ...args)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('has the any-merchant scope'),
    });
    // core's own check, for a client that skips the CLI's: 403 for any scope but admin
    const asFacade = createPaywireClient({ url: stack.core.url, credential: stack.facadeCredential });
    await expect(
      asFacade.merchants.save.mutate({ username: 'db_only_merchant', password: 'long-enough-password' }),
    ).rejects.toMatchObject({ data: { httpStatus: 403 } });
    const made = await stack.db.query("select 1 from merchant where username = 'db_only_merchant'");
    expect(made.rowCount).toBe(0);
  }, 60_000);

  it('is seen by a trigger whoever writes the hash: the generation moves on a direct update', async () => {
    const merchant = await stack.newMerchant();
    const generation = async () =>
      (
        await stack.db.query('select credentials_generation::int as g from merchant where id = $1', [
          merchant.id,
        ])
      ).rows[0]?.g;
    const before = await generation();
    await stack.db.query("update merchant set password_hash = password_hash || '' where id = $1", [
      merchant.id,
    ]);
    expect(await generation()).toBe(before); // the same hash is no change
    await stack.db.query("update merchant set password_hash = 'scrypt$1$1$1$x$y' where id = $1", [
      merchant.id,
    ]);
    expect(await generation()).toBe(before + 1);
  });
});

it('never logs a password or a guessed credential', () => {
  const logs = stack.logs.join('\n');
  expect(logs.length).toBeGreaterThan(0);
  expect(logs).not.toContain(stack.merchant.password);
  expect(logs).not.toContain('wrong-password');
  expect(logs).not.toMatch(/guess\d+/);
});
