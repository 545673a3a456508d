// Issue 12, "Core authenticates every caller": every call to core's port needs a caller credential (401
// before anything runs), and a credential acts only within its scope (403). Over real HTTP, with raw
// fetch and through the typed client.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { type AppRouter, callOptions, createPaywireClient } from '@paywire/client';
import { coreRegistry } from '@paywire/core';
import type { TRPCClientError } from '@trpc/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newDatabase, type Stack, startStack, type TestMerchant } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

const run = promisify(execFile);

let stack: Stack;
let admin: string;

beforeAll(async () => {
  stack = await startStack();
  admin = await stack.issueCredential({ name: 'operator', scope: 'admin' });
});

afterAll(async () => {
  await stack?.close();
});

interface RawCall {
  credential?: string | null;
  authorization?: string;
  merchant?: TestMerchant;
  headers?: Record<string, string>;
}

/** A query (GET) or mutation (POST) straight to core's port, as any process that reaches it could send. */
async function raw(procedure: string, kind: 'query' | 'mutation', call: RawCall = {}, input?: unknown) {
  const headers: Record<string, string> = { ...call.headers };
  if (call.authorization !== undefined) headers.authorization = call.authorization;
  else if (call.credential !== null)
    headers.authorization = `Bearer ${call.credential ?? stack.facadeCredential}`;
  if (call.merchant) headers['x-paywire-merchant'] = String(call.merchant.id);
  const url = new URL(`${stack.core.url}/${procedure}`);
  if (kind === 'query' && input !== undefined) url.searchParams.set('input', JSON.stringify(input));
  const response = await fetch(url, {
    method: kind === 'query' ? 'GET' : 'POST',
    headers: { ...headers, ...(kind === 'mutation' ? { 'content-type': 'application/json' } : {}) },
    ...(kind === 'mutation' ? { body: JSON.stringify(input ?? null) } : {}),
  });
  // biome-ignore lint/suspicious/noExplicitAny: tRPC's envelope, asserted field by field
  const body: any = await response.json();
  return { status: response.status, headers: response.headers, body };
}

/** The interface's error body core puts in every error's `data.paywire`. */
const paywireError = (reply: Awaited<ReturnType<typeof raw>>) =>
  reply.body.error?.data?.paywire?.message?.[0];

async function tokenCount(merchant: TestMerchant): Promise<number> {
  const { rows } = await stack.db.query<{ n: number }>(
    'select count(*)::int as n from payment_fields_token where merchant_id = $1',
    [merchant.id],
  );
  return rows[0]?.n ?? 0;
}

/** The credential's id with another secret (the secret is its last 43 characters). */
const forged = (credential: string) => `${credential.slice(0, -43)}${randomBytes(32).toString('base64url')}`;
const secretOf = (credential: string) => credential.slice(-43);

describe('a call without a valid credential', () => {
  it('is 401 in the interface error shape, and runs nothing', async () => {
    const before = await tokenCount(stack.merchant);
    // The same call with the facade's credential does write a token: the refusal below is the credential's.
    expect((await raw('tokens.create', 'mutation', { merchant: stack.merchant })).status).toBe(200);
    expect(await tokenCount(stack.merchant)).toBe(before + 1);

    const refused = await raw('tokens.create', 'mutation', { credential: null, merchant: stack.merchant });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
    expect(paywireError(refused)).toEqual({
      errorName: 'UNAUTHORIZED',
      code: 10401,
      description: 'a valid caller credential is required (Authorization: Bearer pwc_...)',
    });
    expect(refused.body.error.data).toMatchObject({
      code: 'UNAUTHORIZED',
      httpStatus: 401,
      path: 'tokens.create',
    });
    expect(await tokenCount(stack.merchant)).toBe(before + 1);
  });

  it('is 401 for every procedure and path, loopback included, whatever header names a merchant', async () => {
    for (const [procedure, kind] of [
      ['clock.get', 'query'],
      ['ipn.secret', 'query'],
      ['merchants.authenticate', 'mutation'],
      ['tokens.bind', 'mutation'],
      ['callers.list', 'query'],
      ['no.such.procedure', 'query'],
    ] as const) {
      const reply = await raw(procedure, kind, { credential: null, merchant: stack.merchant });
      expect(reply.status, procedure).toBe(401);
      expect(paywireError(reply)?.errorName, procedure).toBe('UNAUTHORIZED');
    }
  });

  it('is 401 when malformed or forged', async () => {
    const valid = stack.facadeCredential;
    const [, id] = /^pwc_(\d+)_/.exec(valid) ?? [];
    for (const authorization of [
      '',
      'Bearer',
      'Bearer ',
      `Basic ${Buffer.from('sandbox:sandbox-password').toString('base64')}`,
      valid, // no scheme
      `Bearer ${valid}x`,
      `Bearer ${valid.slice(0, -1)}`,
      `Bearer pwc_${id}_`,
      `Bearer pwc_0_${'A'.repeat(43)}`,
      `Bearer pwc_99999_${'A'.repeat(43)}`,
      `Bearer pwc_${id}_${'A'.repeat(43)}`,
      `Bearer ${forged(valid)}`,
      `Bearer ${'x'.repeat(8000)}`,
    ]) {
      const reply = await raw('clock.get', 'query', { authorization, merchant: stack.merchant });
      expect(reply.status, authorization.slice(0, 60)).toBe(401);
      expect(paywireError(reply)?.code).toBe(10401);
    }
  });

  it('is 401 once the credential expired', async () => {
    const credential = await stack.issueCredential({
      name: 'short-lived',
      scope: 'any-merchant',
      expiresInSeconds: 1,
    });
    expect((await raw('clock.get', 'query', { credential, merchant: stack.merchant })).status).toBe(200);
    const refused = await waitFor(
      'the credential to expire',
      async () => (await raw('clock.get', 'query', { credential, merchant: stack.merchant })).status === 401,
      5000,
    );
    expect(refused).toBe(true);
  });

  it('is 401 within about a second of its revocation', async () => {
    const operator = createPaywireClient({ url: stack.core.url, credential: admin });
    const issued = await operator.callers.issue.mutate({ name: 'revoked-soon', scope: 'any-merchant' });
    const call = { credential: issued.credential, merchant: stack.merchant };
    expect((await raw('clock.get', 'query', call)).status).toBe(200); // now cached as verified

    const revoked = await operator.callers.revoke.mutate({ id: issued.id });
    expect(revoked).toMatchObject([{ id: issued.id, state: 'revoked' }]);
    // When a call was last accepted, by when it was sent (ms after the revocation): a verified credential is
    // trusted for at most a second (core's cacheMs), so never later than that, however slow the machine.
    const revokedAt = performance.now();
    let lastAccepted = -1;
    await waitFor(
      'the revocation to take effect',
      async () => {
        const sentAt = Math.round(performance.now() - revokedAt);
        const status = (await raw('clock.get', 'query', call)).status;
        if (status === 200) lastAccepted = sentAt;
        return status === 401;
      },
      10_000,
    );
    expect(lastAccepted).toBeLessThan(1000);
  });
});

describe('a credential under load', () => {
  const verifications = async (source: 'read' | 'joined'): Promise<number> => {
    const metric = await coreRegistry.getSingleMetric('paywire_caller_verifications_total')?.get();
    return metric?.values.find((value) => value.labels.source === source)?.value ?? 0;
  };

  it('is read once for every call that arrives while its read is in flight', async () => {
    const operator = createPaywireClient({ url: stack.core.url, credential: admin });
    const issued = await operator.callers.issue.mutate({ name: 'busy-service', scope: 'any-merchant' });
    const call = { credential: issued.credential, merchant: stack.merchant };
    const reads = await verifications('read');
    const joined = await verifications('joined');
    // The read waits behind a lock the test holds, so every call arrives while it is in flight.
    const locker = await stack.db.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table caller_credential in access exclusive mode');
      const calls = Array.from({ length: 40 }, () => raw('clock.get', 'query', call));
      await waitFor(
        'every call to have found the credential unverified',
        async () => (await verifications('read')) - reads + (await verifications('joined')) - joined >= 40,
      );
      expect((await verifications('read')) - reads).toBe(1);
      await locker.query('commit');
      expect((await Promise.all(calls)).map((reply) => reply.status)).toEqual(Array(40).fill(200));
    } finally {
      await locker.query('rollback').catch(() => {}); // a failed assertion leaves the lock held
      locker.release();
    }
  });
});

describe('scopes', () => {
  let other: TestMerchant;
  let oneMerchant: string;
  let readOnly: string;

  beforeAll(async () => {
    other = await stack.newMerchant();
    oneMerchant = await stack.issueCredential({
      name: 'shop-service',
      scope: 'one-merchant',
      merchantId: stack.merchant.id,
    });
    readOnly = await stack.issueCredential({
      name: 'reporting',
      scope: 'read-only',
      merchantId: stack.merchant.id,
    });
  });

  it('a one-merchant credential acts for its own merchant, and no header moves it to another', async () => {
    const own = await raw('ipn.secret', 'query', { credential: oneMerchant });
    expect(own.status).toBe(200);
    const viaFacade = await raw('ipn.secret', 'query', { merchant: stack.merchant });
    expect(own.body.result.data.secret).toBe(viaFacade.body.result.data.secret);
    expect(
      (await raw('ipn.secret', 'query', { credential: oneMerchant, merchant: stack.merchant })).status,
    ).toBe(200);

    const before = await tokenCount(other);
    const elsewhere = await raw('tokens.create', 'mutation', { credential: oneMerchant, merchant: other });
    expect(elsewhere.status).toBe(403);
    expect(paywireError(elsewhere)).toEqual({
      errorName: 'FORBIDDEN',
      code: 10403,
      description: 'this credential acts for its own merchant only',
    });
    expect(await tokenCount(other)).toBe(before);
    expect((await raw('tokens.create', 'mutation', { credential: oneMerchant })).status).toBe(200);
  });

  it('a read-only credential queries its merchant and changes nothing', async () => {
    expect((await raw('clock.get', 'query', { credential: readOnly })).status).toBe(200);
    const before = await tokenCount(stack.merchant);
    for (const [procedure, input] of [
      ['tokens.create', undefined],
      ['clock.advance', { advanceBy: 'P1D' }],
      ['ipn.rotateSecret', undefined],
    ] as const) {
      const reply = await raw(procedure, 'mutation', { credential: readOnly }, input);
      expect(reply.status, procedure).toBe(403);
      expect(paywireError(reply)).toEqual({
        errorName: 'FORBIDDEN',
        code: 10403,
        description: 'a read-only credential may only query',
      });
    }
    expect(await tokenCount(stack.merchant)).toBe(before);
    const clock = await raw('clock.get', 'query', { credential: readOnly });
    expect(clock.body.result.data.offsetSeconds).toBe(0);
  });

  it('only the facade calls the public interface procedures (logins, hosted fields tokens)', async () => {
    const login = { username: stack.merchant.username, password: stack.merchant.password };
    expect((await raw('merchants.authenticate', 'mutation', {}, login)).body.result.data).toMatchObject({
      outcome: 'accepted',
      merchantId: stack.merchant.id,
    });
    for (const credential of [oneMerchant, readOnly, admin]) {
      for (const [procedure, input] of [
        ['merchants.authenticate', login],
        ['tokens.bind', { token: 'x'.repeat(20) }],
        ['tokens.openForm', { token: 'x'.repeat(20) }],
      ] as const) {
        const reply = await raw(procedure, 'mutation', { credential }, input);
        expect(reply.status, procedure).toBe(403);
        expect(paywireError(reply)?.errorName).toBe('FORBIDDEN');
      }
    }
  });

  it('an admin credential manages credentials and nothing else; no one else manages them', async () => {
    const forAdmin = await raw('ipn.secret', 'query', { credential: admin, merchant: stack.merchant });
    expect(forAdmin.status).toBe(403);
    expect(paywireError(forAdmin)?.description).toBe(
      'an admin credential may only manage caller credentials and processor accounts',
    );
    expect((await raw('callers.list', 'query', { credential: admin })).status).toBe(200);
    for (const credential of [stack.facadeCredential, oneMerchant, readOnly]) {
      const reply = await raw(
        'callers.issue',
        'mutation',
        { credential },
        { name: 'sneaky', scope: 'admin' },
      );
      expect(reply.status).toBe(403);
      expect(paywireError(reply)?.description).toBe(
        'only an admin credential may manage caller credentials and processor accounts',
      );
    }
    const { rows } = await stack.db.query(
      "select count(*)::int as n from caller_credential where name = 'sneaky'",
    );
    expect(rows[0]?.n).toBe(0);
  });

  it('every scope may ask who it is', async () => {
    const whoami = async (credential: string) =>
      (await raw('callers.whoami', 'query', { credential })).body.result.data;
    expect(await whoami(stack.facadeCredential)).toEqual({
      name: 'facade',
      scope: 'any-merchant',
      merchantId: null,
    });
    expect(await whoami(readOnly)).toEqual({
      name: 'reporting',
      scope: 'read-only',
      merchantId: stack.merchant.id,
    });
    expect(await whoami(admin)).toEqual({ name: 'operator', scope: 'admin', merchantId: null });
  });

  it('the facade refuses to start with a credential core refuses or one bound to a merchant', async () => {
    const start = (credential: string) =>
      run(process.execPath, ['apps/facade/src/main.ts'], {
        env: {
          ...process.env,
          CORE_URL: stack.core.url,
          CORE_CREDENTIAL: credential,
          PORT: '0',
          HOST: '127.0.0.1',
        },
        timeout: 60_000, // a Node process's start on a loaded machine
      }).then(
        () => ({ code: 0, stdout: '' }),
        (error: { code: number; stdout: string }) => error,
      );
    const forgedStart = await start(forged(stack.facadeCredential));
    expect(forgedStart.code).toBe(1);
    expect(forgedStart.stdout).toContain('could not verify CORE_CREDENTIAL with core');
    expect(forgedStart.stdout).not.toContain(secretOf(stack.facadeCredential));
    const boundStart = await start(oneMerchant);
    expect(boundStart.code).toBe(1);
    expect(boundStart.stdout).toContain('CORE_CREDENTIAL must have the any-merchant scope');
  }, 150_000); // two facade processes started, each bounded at 60 s

  it('the facade credential without a merchant is 401 on a merchant procedure, as before', async () => {
    const reply = await raw('clock.get', 'query', {});
    expect(reply.status).toBe(401);
    expect(paywireError(reply)?.description).toBe('no authenticated merchant');
  });
});

describe('the typed client', () => {
  const clientError = async (call: Promise<unknown>) => {
    const error = (await call.then(
      () => undefined,
      (thrown: unknown) => thrown,
    )) as TRPCClientError<AppRouter> | undefined;
    expect(error, 'the call must fail').toBeDefined();
    // Typed by core's error formatter: the interface's error body travels in data.paywire.
    return { status: error?.data?.httpStatus, errorName: error?.data?.paywire.message[0]?.errorName };
  };

  it('carries its credential, and core refuses a forged or missing one', async () => {
    const facade = createPaywireClient({ url: stack.core.url, credential: stack.facadeCredential });
    expect(
      await facade.clock.get.query(undefined, callOptions({ merchantId: stack.merchant.id })),
    ).toMatchObject({
      offsetSeconds: 0,
    });
    const forger = createPaywireClient({ url: stack.core.url, credential: forged(stack.facadeCredential) });
    expect(
      await clientError(forger.clock.get.query(undefined, callOptions({ merchantId: stack.merchant.id }))),
    ).toEqual({
      status: 401,
      errorName: 'UNAUTHORIZED',
    });
    const empty = createPaywireClient({ url: stack.core.url, credential: '' });
    expect((await clientError(empty.callers.list.query())).status).toBe(401);
  });

  it('acts for a merchant as a typed option, and out of scope is 403', async () => {
    const readOnly = createPaywireClient({
      url: stack.core.url,
      credential: await stack.issueCredential({
        name: 'typed-reader',
        scope: 'read-only',
        merchantId: stack.merchant.id,
      }),
    });
    expect((await readOnly.clock.get.query()).offsetSeconds).toBe(0);
    expect(await clientError(readOnly.tokens.create.mutate())).toEqual({
      status: 403,
      errorName: 'FORBIDDEN',
    });
  });

  it('sends an idempotency key, so a retried mutation runs once', async () => {
    const facade = createPaywireClient({ url: stack.core.url, credential: stack.facadeCredential });
    const keyed = callOptions({
      merchantId: stack.merchant.id,
      idempotencyKey: `key-${randomBytes(6).toString('hex')}`,
    });
    const before = await tokenCount(stack.merchant);
    const first = await facade.tokens.create.mutate(undefined, keyed);
    const again = await facade.tokens.create.mutate(undefined, keyed);
    expect(again).toEqual(first);
    expect(await tokenCount(stack.merchant)).toBe(before + 1);
  });

  it('loads without core: only types reach @paywire/core', async () => {
    // A fresh Node process where resolving @paywire/core fails: importing and creating the client must work.
    const script = `
      import { registerHooks } from 'node:module';
      registerHooks({ resolve(specifier, context, next) {
        if (specifier.startsWith('@paywire/core')) throw new Error('core reached at run time');
        return next(specifier, context);
      } });
      const { createPaywireClient, callOptions } = await import('@paywire/client');
      const client = createPaywireClient({ url: 'http://127.0.0.1:1/trpc', credential: 'pwc_1_x' });
      process.stdout.write(typeof client.clock.get.query + ' ' + JSON.stringify(callOptions({ merchantId: 7 })));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: process.cwd(),
    });
    expect(stdout).toBe('function {"context":{"paywire":{"merchantId":7}}}');
  });
});

describe('credential lifecycle', () => {
  it('is stored as a hash only', async () => {
    const operator = createPaywireClient({ url: stack.core.url, credential: admin });
    const issued = await operator.callers.issue.mutate({ name: 'hash-check', scope: 'any-merchant' });
    const secret = secretOf(issued.credential);
    expect(secret).toHaveLength(43);
    const { rows } = await stack.db.query('select * from caller_credential where id = $1', [issued.id]);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(JSON.stringify(await operator.callers.list.query())).not.toContain(secret);
  });

  it('rotation keeps the old and the new credential valid until the old one is revoked or its grace ends', async () => {
    const operator = createPaywireClient({ url: stack.core.url, credential: admin });
    const first = await operator.callers.issue.mutate({
      name: 'rotating',
      scope: 'one-merchant',
      merchantId: stack.merchant.id,
    });
    const second = await operator.callers.rotate.mutate({ name: 'rotating', graceSeconds: 3600 });
    expect(second).toMatchObject({
      name: 'rotating',
      scope: 'one-merchant',
      merchantId: stack.merchant.id,
      state: 'active',
    });
    expect(second.credential).not.toBe(first.credential);
    for (const credential of [first.credential, second.credential]) {
      expect((await raw('clock.get', 'query', { credential })).status).toBe(200);
    }
    const listed = (await operator.callers.list.query()).filter((entry) => entry.name === 'rotating');
    expect(listed.map((entry) => [entry.id, entry.state])).toEqual([
      [first.id, 'active'],
      [second.id, 'active'],
    ]);
    const graceEnd = Date.parse(listed[0]?.expiresAt ?? '');
    expect(graceEnd - Date.now()).toBeGreaterThan(3500_000);
    expect(listed[1]?.expiresAt).toBeNull();

    await operator.callers.revoke.mutate({ id: first.id });
    await waitFor('the old credential to stop working', async () => {
      return (await raw('clock.get', 'query', { credential: first.credential })).status === 401;
    });
    expect((await raw('clock.get', 'query', { credential: second.credential })).status).toBe(200);

    // A rotation with no grace ends the old credential at once.
    const third = await operator.callers.rotate.mutate({ name: 'rotating', graceSeconds: 0 });
    await waitFor('the rotated-out credential to stop working', async () => {
      return (await raw('clock.get', 'query', { credential: second.credential })).status === 401;
    });
    expect((await raw('clock.get', 'query', { credential: third.credential })).status).toBe(200);
  });

  it('answers the interface error shape for bad management input', async () => {
    const unbound = await raw(
      'callers.issue',
      'mutation',
      { credential: admin },
      { name: 'x', scope: 'one-merchant' },
    );
    expect(unbound.status).toBe(400);
    expect(paywireError(unbound)?.invalidProperty?.name).toBe('merchantId');
    const unknown = await raw('callers.rotate', 'mutation', { credential: admin }, { name: 'nobody' });
    expect(unknown.status).toBe(404);
    expect(paywireError(unknown)?.errorName).toBe('RESOURCE_NOT_FOUND');
  });

  const callerCli = (env: Record<string, string>, ...args: string[]) =>
    run(process.execPath, ['infra/caller.ts', ...args], { env: { ...process.env, ...env } });
  const auditOf = async (object: string) =>
    (
      await stack.db.query<{ action: string; actor_kind: string; actor: string }>(
        'select action, actor_kind, actor from audit_event where object = $1 order by seq',
        [object],
      )
    ).rows;

  it('the operator CLI issues, lists and revokes through core with an admin credential (npm run caller), audited as the operator', async () => {
    // no DATABASE_URL: core's admin procedures, reached with the operator's admin credential
    const operator = { CORE_URL: stack.core.url, PAYWIRE_ADMIN_CREDENTIAL: admin };
    const cli = (...args: string[]) => callerCli(operator, ...args);
    const issued = await cli(
      'issue',
      '--name',
      'cli-service',
      '--scope',
      'read-only',
      '--merchant',
      String(stack.merchant.id),
    );
    const credential = /^(pwc_\d+_[A-Za-z0-9_-]{43})$/m.exec(issued.stdout)?.[1] ?? '';
    expect(credential).not.toBe('');
    expect((await raw('clock.get', 'query', { credential })).status).toBe(200);
    const id = /^pwc_(\d+)_/.exec(credential)?.[1];
    expect(await auditOf(`caller-credential:${id}`)).toEqual([
      {
        action: 'caller-credential.issue',
        actor_kind: 'operator',
        actor: expect.stringMatching(/^operator \(pwc_\d+\)$/),
      },
    ]);

    const listed = await cli('list');
    expect(listed.stdout).toMatch(/\tcli-service\tread-only merchant \d+\tactive\t/);
    expect(listed.stdout).not.toContain(secretOf(credential));

    const revoked = await cli('revoke', '--name', 'cli-service');
    expect(revoked.stdout).toContain('revoked 1 credential(s)');
    expect((await auditOf('caller:cli-service')).map((event) => [event.action, event.actor_kind])).toEqual([
      ['caller-credential.revoke', 'operator'],
    ]);
    await waitFor('the revoked CLI credential to stop working', async () => {
      return (await raw('clock.get', 'query', { credential })).status === 401;
    });
    await expect(cli('issue', '--name', 'cli-service', '--scope', 'read-only')).rejects.toMatchObject({
      code: 2,
    });
  }, 180_000); // the CLI runs as processes of its own, each slow to start on a loaded machine

  it('the operator CLI refuses without an admin credential: database access alone, none, or another scope', async () => {
    const count = async () =>
      (await stack.db.query<{ count: number }>('select count(*)::integer as count from caller_credential'))
        .rows[0]?.count;
    const readOnly = await stack.issueCredential({
      name: 'cli-reader',
      scope: 'read-only',
      merchantId: stack.merchant.id,
    });
    const before = await count();
    const args = ['issue', '--name', 'sneaky', '--scope', 'any-merchant'];
    const withDatabase = callerCli(
      { DATABASE_URL: stack.databaseUrl, PAYWIRE_ADMIN_CREDENTIAL: '' },
      ...args,
    );
    await expect(withDatabase).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('PAYWIRE_ADMIN_CREDENTIAL is not set'),
    });
    await expect(
      callerCli({ CORE_URL: stack.core.url, PAYWIRE_ADMIN_CREDENTIAL: readOnly }, ...args),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('has the read-only scope') });
    await expect(
      callerCli({ CORE_URL: stack.core.url, PAYWIRE_ADMIN_CREDENTIAL: `${admin}x` }, ...args),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('refused PAYWIRE_ADMIN_CREDENTIAL') });
    expect(await count()).toBe(before);
  }, 180_000); // the CLI runs as processes of its own, each slow to start on a loaded machine

  it('bootstraps the first admin credential from the database (owner), audited, and only the first', async () => {
    const databaseUrl = await newDatabase();
    const db = new pg.Pool({ connectionString: databaseUrl, max: 1 });
    try {
      const first = await callerCli({ DATABASE_URL: databaseUrl }, 'bootstrap', '--name', 'first-operator');
      expect(first.stderr).toContain('directly in the database (owner role)');
      expect(first.stdout).toMatch(/\tfirst-operator\tadmin\tactive\t/);
      expect(first.stdout).toMatch(/^pwc_\d+_[A-Za-z0-9_-]{43}$/m);
      const { rows } = await db.query(
        `select action, actor_kind, object from audit_event where action = 'caller-credential.issue'`,
      );
      expect(rows).toEqual([
        {
          action: 'caller-credential.issue',
          actor_kind: 'operator',
          object: expect.stringMatching(/^caller-credential:\d+$/),
        },
      ]);
      await expect(
        callerCli({ DATABASE_URL: databaseUrl }, 'bootstrap', '--name', 'second-operator'),
      ).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringContaining('an admin credential is active (first-operator)'),
      });
      const admins = await db.query(`select name from caller_credential where scope = 'admin'`);
      expect(admins.rows).toEqual([{ name: 'first-operator' }]);
    } finally {
      await db.end();
    }
  }, 180_000); // the CLI runs as processes of its own, each slow to start on a loaded machine
});
