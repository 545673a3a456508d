import { randomUUID } from 'node:crypto';
import { accountFingerprintInput, bindings } from '@paywire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, expectStatus, type Reply, saleBody } from '../support/http.ts';
import { runNode } from '../support/node-process.ts';
import { operatorCliEnv, type Stack, startStack } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

/**
 * Fingerprint key rotation on real PostgreSQL and real HTTP: `npm run keys -- rotate --fingerprint` runs under
 * a load of keyed sales; no key charges twice, a replay after the rotation answers the first answer, a card
 * and an IBAN vaulted before it are the same card and mandate after; the workers recompute every stored
 * fingerprint, and the old key is retired only once no idempotency record refers to it.
 */
const card = '4007702835532454';
const iban = 'DE89370400440532013000';

describe('fingerprint key rotation', () => {
  let stack: Stack;
  let api: ReturnType<typeof client>;
  let operator: Record<string, string>;

  beforeAll(async () => {
    stack = await startStack({ keyRefreshMs: 300, keyRetireAfterSeconds: 2 });
    api = client(stack);
    operator = await operatorCliEnv(stack); // the keys CLI acts through core's admin procedures
  });

  afterAll(async () => {
    await stack?.close();
  });

  const keyed = (key: string) => ({ headers: { 'idempotency-key': key } });
  const cardSale = (extra: Record<string, unknown> = {}) =>
    saleBody({
      creditCard: { cardNumber: card, securityCode: '123', expirationMonth: '02', expirationYear: '2031' },
      ...extra,
    });
  const fingerprintKeys = async () =>
    (
      await stack.db.query<{ id: number; legacy: boolean; retired: boolean }>(
        `select id, legacy, retired_at is not null as retired from data_key where purpose = 'fingerprint'
         order by id`,
      )
    ).rows;
  const storedCards = async (shopper: number) =>
    (
      await stack.db.query<{ id: string; fingerprint: string }>(
        'select id, fingerprint from stored_card where shopper_id = $1 order by id',
        [shopper],
      )
    ).rows;

  it('rotates under keyed sales: no double charge, replays and vaulted cards and mandates stay the same', async () => {
    const [original] = await fingerprintKeys();
    expect(original?.legacy).toBe(true); // the key imported from CARD_ENCRYPTION_KEY: bare fingerprints

    // before the rotation: a keyed sale vaulting the card, and a SEPA debit making the shopper's mandate
    const firstKey = randomUUID();
    const first = expectStatus(await api.post('/transactions', cardSale(), keyed(firstKey)), 200).body;
    const shopper = Number(first.vaultedShopperId);
    const [vaulted] = await storedCards(shopper);
    expect(vaulted?.fingerprint).not.toContain(':');
    // an account updater batch still unanswered (its answer comes days later): its line keeps only the
    // card's fingerprint, which must follow the card to the new key for the answer to find it
    expectStatus(
      await api.post('/account-updater', {
        accountUpdateBatchId: `rotation-${randomUUID().slice(0, 8)}`,
        accountUpdate: [
          {
            merchantUpdaterId: 'vaulted',
            originalCard: { creditCard: { cardNumber: card, expirationMonth: '02', expirationYear: '2031' } },
          },
        ],
      }),
      200,
    );
    const lineFingerprint = async () =>
      (
        await stack.db.query<{ card_fingerprint: string }>(
          `select card_fingerprint from account_update where merchant_id = $1 and merchant_updater_id = 'vaulted'`,
          [stack.merchant.id],
        )
      ).rows[0]?.card_fingerprint;
    expect(await lineFingerprint()).toBe(vaulted?.fingerprint);
    const mandateOf = async () =>
      expectStatus(
        await api.post('/alt-transactions', {
          vaultedShopperId: shopper,
          sepaDirectDebitTransaction: { iban },
          payerInfo: { firstName: 'Ada', lastName: 'Lovelace' },
          amount: 10.5,
          currency: 'EUR',
          authorizedByShopper: true,
        }),
        200,
      ).body.sepaDirectDebitTransaction.mandateId;
    const mandate = await mandateOf();

    // a load of keyed sales, each key sent twice (concurrently), some with the vaulted card again
    let stop = false;
    let sales = 0;
    const failures: string[] = [];
    const answers = new Map<string, string[]>();
    const seller = async (lane: number) => {
      while (!stop) {
        const key = randomUUID();
        const body = sales % 2 === 0 ? cardSale({ vaultedShopperId: shopper }) : saleBody();
        const replies: Reply[] = await Promise.all([
          api.post('/transactions', body, keyed(key)),
          api.post('/transactions', body, keyed(key)),
        ]);
        sales++;
        for (const reply of replies) {
          // 409: the twin is still in flight, as a concurrent duplicate must be told
          if (reply.status === 200) answers.set(key, [...(answers.get(key) ?? []), reply.body.transactionId]);
          else if (reply.status !== 409) failures.push(`lane ${lane}: ${reply.status} ${reply.text}`);
        }
      }
    };
    const load = [1, 2, 3].map(seller);
    await waitFor('sales under way', () => sales >= 6, 30_000);

    const rotated = await runNode(
      ['infra/keys.ts', 'rotate', '--fingerprint', '--activate-after', '2'],
      operator,
    );
    expect(rotated.code, rotated.output).toBe(0);
    expect(rotated.output).toMatch(/fingerprint key \d+ made/);
    const newest = Math.max(...(await fingerprintKeys()).map((key) => key.id));
    expect(newest).not.toBe(original?.id);
    // audited as the operator whose admin credential asked
    const rotation = await stack.db.query(
      `select actor_kind, actor from audit_event where action = 'key.rotate' and object = $1`,
      [`data-key:${newest}`],
    );
    expect(rotation.rows).toEqual([
      { actor_kind: 'operator', actor: expect.stringMatching(/^operator-[0-9a-f]+ \(pwc_\d+\)$/) },
    ]);

    const under = new RegExp(`^f${newest}:`);
    await waitFor(
      'every card and mandate fingerprinted under the new key',
      async () => {
        const { rows } = await stack.db.query<{ value: string }>(
          `select fingerprint as value from stored_card union all select iban_fingerprint from sepa_mandate`,
        );
        return rows.length > 1 && rows.every((row) => under.test(row.value));
      },
      60_000,
      250,
    );
    expect(await lineFingerprint()).toBe((await storedCards(shopper))[0]?.fingerprint);
    const salesAtRefingerprint = sales;
    await waitFor('sales after the re-fingerprinting', () => sales >= salesAtRefingerprint + 6, 30_000);
    stop = true;
    await Promise.all(load);
    expect(failures).toEqual([]);

    // no key charged twice: every 200 of one key names one transaction, and one row per key exists
    for (const [key, ids] of answers) expect(new Set(ids).size, key).toBe(1);
    const { rows: charged } = await stack.db.query<{ key: string; transactions: number }>(
      `select r.key, count(t.id)::integer as transactions from idempotency_record r
         left join card_transaction t on t.merchant_id = r.merchant_id
           and t.id::text = (r.outcome::jsonb -> 'data' ->> 'transactionId')
       where r.merchant_id = $1 group by r.key`,
      [stack.merchant.id],
    );
    expect(charged.length).toBeGreaterThan(answers.size);
    for (const row of charged) expect(row.transactions, row.key).toBe(1);

    // the card vaulted before the rotation is the same card after it, however often it was sent again
    const cards = await storedCards(shopper);
    expect(cards.map((row) => row.id)).toEqual([vaulted?.id]);
    expect(cards[0]?.fingerprint).toMatch(under);
    const again = expectStatus(await api.post('/transactions', cardSale({ vaultedShopperId: shopper })), 200);
    expect(again.body.creditCard.cardLastFourDigits).toBe(card.slice(-4));
    expect((await storedCards(shopper)).map((row) => row.id)).toEqual([vaulted?.id]);
    // and charging the shopper opens the number re-sealed bound to its new fingerprint
    expectStatus(
      await api.post('/transactions', {
        cardTransactionType: 'AUTH_CAPTURE',
        amount: 2,
        currency: 'USD',
        vaultedShopperId: shopper,
      }),
      200,
    );
    expect(await mandateOf()).toBe(mandate);

    // a card and a mandate the workers have not reached yet (put back under the old key, as they were) are
    // still found while both keys are live
    const vault = stack.core.services.vault;
    const oldKey = original?.id ?? 0;
    const [row] = (
      await stack.db.query<{ id: string; merchant_id: number; fingerprint: string; sealed_number: string }>(
        'select id, merchant_id, fingerprint, sealed_number from stored_card where shopper_id = $1',
        [shopper],
      )
    ).rows;
    if (!row) throw new Error('no stored card');
    const number = vault.open(row.sealed_number, bindings.card(row.merchant_id, row.fingerprint));
    const oldCard = vault.fingerprintWith(oldKey, number);
    expect(oldCard).not.toContain(':');
    await stack.db.query('update stored_card set fingerprint = $2, sealed_number = $3 where id = $1', [
      row.id,
      oldCard,
      vault.seal(number, bindings.card(row.merchant_id, oldCard)),
    ]);
    const oldIban = vault.fingerprintWith(
      oldKey,
      accountFingerprintInput({ scheme: 'SEPA', number: iban, routingNumber: null }),
    );
    await stack.db.query(
      'update sepa_mandate set iban_fingerprint = $2, sealed_iban = $3 where shopper_id = $1',
      [shopper, oldIban, vault.seal(iban, bindings.mandate(row.merchant_id, oldIban))],
    );
    expectStatus(await api.post('/transactions', cardSale({ vaultedShopperId: shopper })), 200);
    expect((await storedCards(shopper)).map((card) => card.id)).toEqual([vaulted?.id]);
    expect(await mandateOf()).toBe(mandate);

    // the sale keyed before the rotation replays its first answer, however the request is fingerprinted now
    const replay = expectStatus(await api.post('/transactions', cardSale(), keyed(firstKey)), 200).body;
    expect(replay.transactionId).toBe(first.transactionId);
    const changed = await api.post('/transactions', cardSale({ amount: 99 }), keyed(firstKey));
    expect(changed.status, changed.text).toBe(422);

    // the old key stays while unexpired idempotency records refer to it; retired once they have expired
    expect((await fingerprintKeys()).find((key) => key.id === original?.id)?.retired).toBe(false);
    const status = await runNode(['infra/keys.ts', 'status', '--json'], operator);
    expect(status.code, status.output).toBe(0);
    const shown = JSON.parse(status.output.trim().split('\n').pop() ?? '{}');
    expect(shown.keys.find((key: { id: number }) => key.id === newest)).toMatchObject({
      state: 'fingerprinting',
    });
    expect(shown.keys.find((key: { id: number }) => key.id === original?.id)).toMatchObject({
      state: 'matching',
      references: expect.any(Number),
    });
    await stack.db.query(`update idempotency_record set expires_at = now() where fingerprint !~ $1`, [
      `^f${newest}:`,
    ]);
    // the workers come back for the card and mandate put back under the old key, then retire it
    await waitFor(
      'the old fingerprint key retired',
      async () => (await fingerprintKeys()).every((key) => key.retired === (key.id !== newest)),
      150_000,
      250,
    );
    const { rows: retired } = await stack.db.query('select wrapped from data_key where id = $1', [
      original?.id,
    ]);
    expect(retired[0]?.wrapped).toBeNull();
    // a fresh keyed sale and the vaulted card work under the new key alone
    const fresh = randomUUID();
    const one = expectStatus(await api.post('/transactions', saleBody(), keyed(fresh)), 200).body;
    const two = expectStatus(await api.post('/transactions', saleBody(), keyed(fresh)), 200).body;
    expect(two.transactionId).toBe(one.transactionId);
    const [last] = await storedCards(shopper);
    expect(last).toEqual({ id: vaulted?.id, fingerprint: expect.stringMatching(under) });
  }, 300_000);
});
