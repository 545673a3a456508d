import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, expectStatus, saleBody } from '../support/http.ts';
import { paymentRowCounts, type Stack, startStack } from '../support/stack.ts';

// ---------------------------------------------------------------------------------------------------------
// Idempotency fingerprints reveal nothing (issue 12): what is stored is a keyed hash, so no stored value lets
// anyone test guesses of a card number or CVV offline; it still recognises a retry, and a record stored
// before fingerprints were keyed (0011 cleared them) still replays rather than pay twice.
// ---------------------------------------------------------------------------------------------------------

let stack: Stack;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  stack = await startStack();
  api = client(stack);
});

afterAll(async () => {
  await stack?.close();
});

async function storedFingerprint(key: string): Promise<string | null> {
  const { rows } = await stack.db.query<{ fingerprint: string | null }>(
    'select fingerprint from idempotency_record where merchant_id = $1 and key = $2',
    [stack.merchant.id, key],
  );
  expect(rows).toHaveLength(1);
  return rows[0]?.fingerprint ?? null;
}

/** Every plain digest of a text anyone could compute without our key, in the usual encodings. */
function plainDigests(text: string): string[] {
  return ['md5', 'sha1', 'sha256', 'sha512'].flatMap((algorithm) => {
    const digest = createHash(algorithm).update(text).digest();
    return [digest.toString('hex'), digest.toString('base64'), digest.toString('base64url')];
  });
}

describe('stored fingerprints', () => {
  it('match no plain hash of the card number, the CVV, the body or the request', async () => {
    const key = randomUUID();
    const body = saleBody();
    const raw = JSON.stringify(body);
    const sale = expectStatus(
      await api.post('/transactions', undefined, { raw, headers: { 'idempotency-key': key } }),
      200,
    );
    const fingerprint = await storedFingerprint(key);
    expect(fingerprint).toMatch(/^[A-Za-z0-9_-]{20,64}$/);

    const { cardNumber, securityCode } = body.creditCard;
    // The facade's digest text (method, path, query, formats, body) and what core would hash without it.
    const requestText = ['POST', '/services/2/transactions', '', 'json', 'json', raw].join('\n');
    const facadeDigest = createHash('sha256').update(requestText).digest('hex');
    const texts = [cardNumber, securityCode, raw, requestText, facadeDigest, `request:${facadeDigest}`];
    const candidates = texts.flatMap(plainDigests);
    // The stored value is the keyed hash of exactly this digest (so the digest above is the facade's, and the
    // digest itself, what was stored before 0011, is among the candidates this check refuses).
    expect(fingerprint).toBe(stack.core.services.vault.fingerprint(`request:${facadeDigest}`));
    expect(candidates).toContain(facadeDigest);
    for (const candidate of candidates) {
      expect(fingerprint).not.toBe(candidate);
      expect(candidate).not.toContain(fingerprint ?? '');
    }
    for (const text of [cardNumber, securityCode, facadeDigest]) expect(fingerprint).not.toContain(text);

    // Still a fingerprint: the same request replays, another one under the key is refused.
    const again = expectStatus(
      await api.post('/transactions', undefined, { raw, headers: { 'idempotency-key': key } }),
      200,
    );
    expect(again.body.transactionId).toBe(sale.body.transactionId);
    const other = await api.post('/transactions', saleBody({ amount: 26 }), {
      headers: { 'idempotency-key': key },
    });
    expectStatus(other, 422);
    expect(other.body.message[0].errorName).toBe(
      'SAME_IDEMPOTENCY_KEY_WAS_ALREADY_IN_USE_WITH_PREVIOUS_DIFFERENT_REQUEST',
    );
  });

  it('of no two requests are the same, and none of any of this merchant is plain', async () => {
    const keys = [randomUUID(), randomUUID()];
    for (const [index, key] of keys.entries()) {
      expectStatus(
        await api.post('/transactions', saleBody({ amount: 30 + index }), {
          headers: { 'idempotency-key': key },
        }),
        200,
      );
    }
    const { rows } = await stack.db.query<{ fingerprint: string }>(
      'select fingerprint from idempotency_record where merchant_id = $1',
      [stack.merchant.id],
    );
    expect(rows.length).toBeGreaterThanOrEqual(3);
    expect(new Set(rows.map((row) => row.fingerprint)).size).toBe(rows.length);
    for (const { fingerprint } of rows) expect(fingerprint).not.toMatch(/^[0-9a-f]{64}$/); // a plain SHA-256 in hex
  });
});

describe('records from before keyed fingerprints', () => {
  it('replay their answer to a retry and never pay twice (0011 cleared their plain fingerprints)', async () => {
    const key = randomUUID();
    const first = expectStatus(
      await api.post('/transactions', saleBody({ amount: 41 }), { headers: { 'idempotency-key': key } }),
      200,
    );
    await stack.db.query(
      'update idempotency_record set fingerprint = null where merchant_id = $1 and key = $2',
      [stack.merchant.id, key],
    );
    const before = await paymentRowCounts(stack.db, stack.merchant);
    const retry = expectStatus(
      await api.post('/transactions', saleBody({ amount: 41 }), { headers: { 'idempotency-key': key } }),
      200,
    );
    expect(retry.body.transactionId).toBe(first.body.transactionId);
    expect(await paymentRowCounts(stack.db, stack.merchant)).toEqual(before);
  });
});
