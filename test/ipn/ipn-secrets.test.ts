import { createHash, createHmac } from 'node:crypto';
import { createPaywireClient } from '@paywire/client';
import { referencesPerKey, sweepRetention } from '@paywire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, client, expectStatus, saleBody } from '../support/http.ts';
import { hookConfig, type IpnReceiver, type ReceivedIpn, startIpnReceiver } from '../support/ipn-receiver.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

// ---------------------------------------------------------------------------------------------------------
// IPN secrets (issue 22): sealed by the card vault (a table the key rotation re-encrypts), never in plain
// text in the database; secrets from before are sealed on first use; a rotation keeps the previous secret
// signing beside the new one for its overlap; a read-only credential cannot read a secret. Real HTTP, real
// core, real PostgreSQL.
// ---------------------------------------------------------------------------------------------------------

let stack: Stack;
let api: ReturnType<typeof client>;
let receiver: IpnReceiver;

beforeAll(async () => {
  stack = await startStack();
  api = client(stack);
  receiver = await startIpnReceiver();
});

afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

async function coreFor(merchant: TestMerchant, scope: 'one-merchant' | 'read-only') {
  const credential = await stack.issueCredential({ name: `ipn-${scope}`, scope, merchantId: merchant.id });
  return createPaywireClient({ url: stack.core.url, credential });
}

async function chargesTo(merchant: TestMerchant): Promise<string> {
  const hook = receiver.newHook();
  const config = hookConfig(hook, ['sendCharge']);
  expectStatus(await api.post('/notification-config', config, as(merchant)), 200);
  return hook;
}

/** A sale, and its Charge IPN as the hook got it. */
async function chargeIpn(merchant: TestMerchant, hook: string): Promise<ReceivedIpn> {
  const sale = expectStatus(await api.post('/transactions', saleBody(), as(merchant)), 200);
  const reference = String(sale.body.transactionId);
  return waitFor(`the Charge IPN of ${reference}`, () =>
    receiver.at(hook).find((request) => request.params.get('referenceNumber') === reference),
  );
}

/** The signatures of a delivery that verify with the secret (Standard Webhooks). */
function verifiedBy(secret: string, request: ReceivedIpn): number {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signed = `${request.headers['webhook-id']}.${request.headers['webhook-timestamp']}.${request.body}`;
  const expected = `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
  return String(request.headers['webhook-signature'])
    .split(' ')
    .filter((part) => part === expected).length;
}

const authKey = (request: ReceivedIpn, secret: string) =>
  createHash('md5')
    .update(`${request.params.get('referenceNumber')}${secret}`)
    .digest('hex');

async function storedSecrets(merchant: TestMerchant) {
  const { rows } = await stack.db.query<{ sealed_secret: string; retires_at: Date | null }>(
    'select sealed_secret, retires_at from ipn_secret where merchant_id = $1 order by id',
    [merchant.id],
  );
  const { rows: plain } = await stack.db.query<{ ipn_secret: string | null }>(
    'select ipn_secret from merchant where id = $1',
    [merchant.id],
  );
  return { sealed: rows, plain: plain[0]?.ipn_secret };
}

describe('IPN secrets at rest', () => {
  it('are sealed by the card vault, under the current data key, and sign what is sent', async () => {
    const merchant = await stack.newMerchant();
    const before = await referencesPerKey(stack.core.services.orm.em.fork());
    const hook = await chargesTo(merchant);
    const ipn = await chargeIpn(merchant, hook);
    const secret = (await (await coreFor(merchant, 'one-merchant')).ipn.secret.query()).secret;

    const stored = await storedSecrets(merchant);
    expect(stored.plain).toBeNull();
    expect(stored.sealed).toHaveLength(1);
    expect(stored.sealed[0]?.sealed_secret).toMatch(/^v2:\d+:/);
    expect(stored.sealed[0]?.sealed_secret).not.toContain(secret.slice(6, 20));
    expect(ipn.params.get('authKey')).toBe(authKey(ipn, secret));
    expect(verifiedBy(secret, ipn)).toBe(1);
    // Counted as referring to its data key, as cards are: a rotation re-encrypts it before retiring the key.
    const after = await referencesPerKey(stack.core.services.orm.em.fork());
    const total = (counts: Map<string, number>) => [...counts.values()].reduce((sum, n) => sum + n, 0);
    expect(total(after) - total(before)).toBeGreaterThanOrEqual(1);
  });

  it('a secret kept in plain text before sealing is sealed on first use, keeping its value', async () => {
    const merchant = await stack.newMerchant();
    const plain = `whsec_${Buffer.from('an old secret from before 0029!!').toString('base64')}`;
    await stack.db.query('update merchant set ipn_secret = $1 where id = $2', [plain, merchant.id]);
    const hook = await chargesTo(merchant);
    const ipn = await chargeIpn(merchant, hook);
    expect(ipn.params.get('authKey')).toBe(authKey(ipn, plain));
    const stored = await storedSecrets(merchant);
    expect(stored.plain).toBeNull();
    expect(stored.sealed).toHaveLength(1);
    expect((await (await coreFor(merchant, 'one-merchant')).ipn.secret.query()).secret).toBe(plain);
  });
});

describe('rotation with an overlap', () => {
  it('signs with the new and the previous secret until the overlap ends, then with the new one alone', async () => {
    const merchant = await stack.newMerchant();
    const core = await coreFor(merchant, 'one-merchant');
    const hook = await chargesTo(merchant);
    const previous = (await core.ipn.secret.query()).secret;
    // A sale first: core knows the merchant's facts, the secret before the rotation among them, when the
    // next sale starts from them (merchants/facts.ts).
    const before = await chargeIpn(merchant, hook);
    expect(before.params.get('authKey')).toBe(authKey(before, previous));
    const { secret } = await core.ipn.rotateSecret.mutate();
    expect(secret).not.toBe(previous);

    const during = await chargeIpn(merchant, hook);
    expect(verifiedBy(secret, during)).toBe(1);
    expect(verifiedBy(previous, during)).toBe(1);
    expect(during.params.get('authKey')).toBe(authKey(during, secret));
    const stored = await storedSecrets(merchant);
    expect(stored.sealed.map((row) => row.retires_at === null)).toEqual([false, true]);

    // The overlap ends (a day, moved here to now): the previous secret signs nothing and is deleted.
    await stack.db.query(
      `update ipn_secret set retires_at = now() - interval '1 second' where merchant_id = $1 and retires_at is not null`,
      [merchant.id],
    );
    const after = await chargeIpn(merchant, hook);
    expect(verifiedBy(secret, after)).toBe(1);
    expect(verifiedBy(previous, after)).toBe(0);
    await sweepRetention(
      stack.core.services.orm.em.fork(),
      stack.core.services.mode,
      stack.core.services.retention,
    );
    expect((await storedSecrets(merchant)).sealed).toHaveLength(1);
  });
});

describe('who may read a secret', () => {
  it('a read-only credential is refused (403), a one-merchant credential reads it', async () => {
    const merchant = await stack.newMerchant();
    const readOnly = await coreFor(merchant, 'read-only');
    const refused = await readOnly.ipn.secret.query().then(
      () => undefined,
      (error: { data?: { httpStatus?: number } }) => error,
    );
    expect(refused?.data?.httpStatus).toBe(403);
    expect((await (await coreFor(merchant, 'one-merchant')).ipn.secret.query()).secret).toMatch(/^whsec_/);
  });
});
