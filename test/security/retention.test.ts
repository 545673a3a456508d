import { sweepRetention } from '@paywire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sepaDebitBody } from '../support/debits.ts';
import { as, client, expectStatus, failure, saleBody, xmlDocument } from '../support/http.ts';
import { hookConfig, type IpnReceiver, startIpnReceiver } from '../support/ipn-receiver.ts';
import { createPlan } from '../support/recurring.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

// ---------------------------------------------------------------------------------------------------------
// Retention (issue 22): the sweep erases the card of expired and spent hosted-fields tokens, finished IPN
// deliveries and failed logins past their periods; deleting a vaulted shopper, or one of its cards (a PUT with
// status D, as the original does), takes the card numbers out of the database at once, sends ShopperDeleted
// and is audited. Every claim is checked by reading the tables. Real HTTP, real core, real PostgreSQL.
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

const visa = {
  cardNumber: '4263982640269299',
  securityCode: '837',
  expirationMonth: '02',
  expirationYear: '2031',
};
const mastercard = {
  cardNumber: '5425233430109903',
  securityCode: '123',
  expirationMonth: '03',
  expirationYear: '2032',
};

const sweep = () =>
  sweepRetention(stack.core.services.orm.em.fork(), stack.core.services.mode, stack.core.services.retention);

async function newShopper(merchant: TestMerchant, cards: object[], merchantShopperId?: string) {
  const reply = await api.post(
    '/vaulted-shoppers',
    {
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@example.com',
      zip: '02139',
      ...(merchantShopperId ? { merchantShopperId } : {}),
      paymentSources: { creditCardInfo: cards.map((creditCard) => ({ creditCard })) },
    },
    as(merchant),
  );
  return Number(expectStatus(reply, 200).body.vaultedShopperId);
}

interface CardRow {
  last_four: string;
  sealed_number: string | null;
  fingerprint: string | null;
  billing_contact: unknown;
  removed_at: Date | null;
}

async function cardsOf(shopperId: number): Promise<CardRow[]> {
  const { rows } = await stack.db.query<CardRow>(
    `select last_four, sealed_number, fingerprint, billing_contact, removed_at from stored_card
     where shopper_id = $1 order by id`,
    [shopperId],
  );
  return rows;
}

async function auditActions(merchantId: number): Promise<string[]> {
  const { rows } = await stack.db.query<{ action: string; object: string }>(
    'select action, object from audit_event where merchant_id = $1 order by seq',
    [merchantId],
  );
  return rows.map((row) => `${row.action} ${row.object}`);
}

/** Sends the merchant's events of one flag to a fresh hook of the receiver. */
async function listen(merchant: TestMerchant, flag: string): Promise<string> {
  const hook = receiver.newHook();
  expectStatus(await api.post('/notification-config', hookConfig(hook, [flag]), as(merchant)), 200);
  return hook;
}

describe('the retention sweep', () => {
  async function boundToken(merchant: TestMerchant): Promise<string> {
    const created = expectStatus(await api.post('/payment-fields-tokens', undefined, as(merchant)), 201);
    const token = (created.headers.get('location') ?? '').split('/').pop() ?? '';
    expectStatus(
      await api.put(
        `/payment-fields-tokens/${token}`,
        { ccNumber: visa.cardNumber, cvv: visa.securityCode, expDate: `02/2031` },
        { merchant: null },
      ),
      200,
    );
    return token;
  }

  const sealedCard = async (token: string) =>
    (
      await stack.db.query<{ sealed_card: string | null }>(
        'select sealed_card from payment_fields_token where token = $1',
        [token],
      )
    ).rows[0]?.sealed_card;

  it("erases an expired token's card (number and CVV) by its merchant's clock, and keeps a live token's", async () => {
    const expiring = await stack.newMerchant();
    const other = await stack.newMerchant();
    const expired = await boundToken(expiring);
    const live = await boundToken(other);
    expect(await sealedCard(expired)).toMatch(/\S/);

    expectStatus(await api.put('/sandbox/clock', { advanceBy: 'PT61M' }, as(expiring)), 200);
    await sweep();

    expect(await sealedCard(expired)).toBeNull();
    expect(await sealedCard(live)).toMatch(/\S/);
    // The expired token is refused as before: nothing was left to charge.
    const sale = await api.post(
      '/transactions',
      { ...saleBody(), creditCard: undefined, pfToken: expired },
      as(expiring),
    );
    expect(failure(sale)).toMatchObject({ status: 400, errorName: 'INVALID_PAYMENT_DETAILS' });
  });

  it('deletes finished IPN deliveries and forgotten failed logins past their periods, and nothing younger', async () => {
    const merchant = await stack.newMerchant();
    await listen(merchant, 'sendCharge');
    for (let n = 0; n < 3; n += 1)
      expectStatus(await api.post('/transactions', saleBody(), as(merchant)), 200);
    await waitFor('three Charge IPNs delivered', async () => {
      const { rows } = await stack.db.query<{ n: number }>(
        `select count(*)::int as n from ipn_delivery where merchant_id = $1 and state = 'delivered'`,
        [merchant.id],
      );
      return rows[0]?.n === 3;
    });
    const { rows: deliveries } = await stack.db.query<{ id: string }>(
      'select id from ipn_delivery where merchant_id = $1 order by id',
      [merchant.id],
    );
    const [old, oldUnfinished, young] = deliveries.map((row) => row.id);
    const days = stack.core.services.retention.ipnDeliveryDays;
    await stack.db.query(
      `update ipn_delivery set created_at = now() - make_interval(days => $2 + 1) where id = any($1::bigint[])`,
      [[old, oldUnfinished], days],
    );
    // Still being retried: it stays whatever its age.
    await stack.db.query(
      `update ipn_delivery set state = 'pending', next_try_at = now() + interval '1 day' where id = $1`,
      [oldUnfinished],
    );

    const hours = stack.core.services.retention.loginFailureHours;
    const wrong = `Basic ${Buffer.from(`${merchant.username}:wrong-password`).toString('base64')}`;
    expectStatus(await api.get('/sandbox/clock', as({ ...merchant, authorization: wrong })), 401);
    const { rows: failures } = await stack.db.query<{ key: string }>(
      'select key from login_failure order by key',
    );
    expect(failures.length).toBeGreaterThan(0);
    const oldKeys = failures.map((row) => row.key).slice(0, 1);
    await stack.db.query(
      `update login_failure set last_failure_at = now() - make_interval(hours => $2 + 1), blocked_until = null
       where key = any($1::text[])`,
      [oldKeys, hours],
    );

    const swept = await sweep();
    expect(swept.deliveries).toBeGreaterThanOrEqual(1);
    const { rows: left } = await stack.db.query<{ id: string }>(
      'select id from ipn_delivery where merchant_id = $1 order by id',
      [merchant.id],
    );
    expect(left.map((row) => row.id)).toEqual([oldUnfinished, young]);
    const { rows: keysLeft } = await stack.db.query<{ key: string }>('select key from login_failure');
    const remaining = keysLeft.map((row) => row.key);
    for (const key of oldKeys) expect(remaining).not.toContain(key);
    expect(remaining.length).toBe(failures.length - oldKeys.length);
  });
});

describe('deleting a vaulted shopper', () => {
  it('JSON: erases its cards and personal data, answers 200 with a description, sends ShopperDeleted, audits', async () => {
    const merchant = await stack.newMerchant();
    const hook = await listen(merchant, 'sendShopperDeleted');
    const shopperId = await newShopper(merchant, [visa, mastercard], 'shopper-to-forget');
    const paid = expectStatus(
      await api.post(
        '/transactions',
        { cardTransactionType: 'AUTH_CAPTURE', amount: 10, currency: 'USD', vaultedShopperId: shopperId },
        as(merchant),
      ),
      200,
    );

    const deleted = expectStatus(await api.delete(`/vaulted-shoppers/${shopperId}`, as(merchant)), 200);
    expect(deleted.body.description).toContain(String(shopperId));

    const cards = await cardsOf(shopperId);
    expect(cards).toHaveLength(2);
    for (const card of cards) {
      expect(card).toMatchObject({ sealed_number: null, fingerprint: null, billing_contact: null });
      expect(card.removed_at).not.toBeNull();
    }
    const { rows } = await stack.db.query(
      `select first_name, last_name, email, zip, merchant_shopper_id, deleted_at from shopper where id = $1`,
      [shopperId],
    );
    expect(rows[0]).toMatchObject({
      first_name: null,
      last_name: null,
      email: null,
      zip: null,
      merchant_shopper_id: null,
    });
    expect(rows[0].deleted_at).not.toBeNull();
    const [ipn] = await waitFor(
      'the ShopperDeleted IPN',
      () => receiver.at(hook).length > 0 && receiver.at(hook),
    );
    expect(ipn?.params.get('transactionType')).toBe('SHOPPER_DELETED');
    expect(ipn?.params.get('accountId')).toBe(String(shopperId));
    expect(ipn?.params.get('merchantShopperId')).toBe('shopper-to-forget');
    expect(ipn?.body).not.toContain('Lovelace');
    expect((await auditActions(merchant.id)).filter((event) => event.startsWith('shopper'))).toEqual([
      `shopper.delete shopper:${shopperId}`,
    ]);

    // Gone for the API; its transaction still shows the card's facts.
    expect(failure(await api.get(`/vaulted-shoppers/${shopperId}`, as(merchant)))).toMatchObject({
      status: 404,
      errorName: 'SHOPPER_NOT_FOUND',
    });
    expect(failure(await api.delete(`/vaulted-shoppers/${shopperId}`, as(merchant)))).toMatchObject({
      status: 404,
      errorName: 'SHOPPER_NOT_FOUND',
    });
    const sale = await api.post(
      '/transactions',
      { cardTransactionType: 'AUTH_CAPTURE', amount: 10, currency: 'USD', vaultedShopperId: shopperId },
      as(merchant),
    );
    expect(failure(sale)).toMatchObject({ status: 404, errorName: 'SHOPPER_NOT_FOUND' });
    const shown = expectStatus(await api.get(`/transactions/${paid.body.transactionId}`, as(merchant)), 200);
    expect(shown.body.creditCard.cardLastFourDigits).toBe('9903');
    expect(stack.logs.join('\n')).not.toContain(visa.cardNumber);
  });

  it("waits for its SEPA debit to settle, then erases its mandate's IBAN; the debit still shows the first and last four", async () => {
    const merchant = await stack.newMerchant();
    const shopperId = await newShopper(merchant, [visa]);
    const debit = expectStatus(
      await api.post('/alt-transactions', sepaDebitBody({ vaultedShopperId: shopperId }), as(merchant)),
      200,
    ).body;
    expect(failure(await api.delete(`/vaulted-shoppers/${shopperId}`, as(merchant)))).toMatchObject({
      status: 400,
      property: 'vaultedShopperId',
    });
    expectStatus(await api.put('/sandbox/clock', { advanceBy: 'PT5M' }, as(merchant)), 200);
    await waitFor('the debit collected', async () => {
      const { rows } = await stack.db.query('select status from sepa_debit where id = $1', [
        debit.transactionId,
      ]);
      return rows[0]?.status === 'SUCCESS';
    });

    expectStatus(await api.delete(`/vaulted-shoppers/${shopperId}`, as(merchant)), 200);
    const { rows: mandates } = await stack.db.query(
      'select sealed_iban, iban_fingerprint, iban_first_four, iban_last_four from sepa_mandate where shopper_id = $1',
      [shopperId],
    );
    expect(mandates).toEqual([
      { sealed_iban: null, iban_fingerprint: null, iban_first_four: 'DE89', iban_last_four: '3000' },
    ]);
    const shown = expectStatus(await api.get(`/alt-transactions/${debit.transactionId}`, as(merchant)), 200);
    expect(shown.body.sepaDirectDebitTransaction).toMatchObject({
      ibanFirstFour: 'DE89',
      ibanLastFour: '3000',
    });
  });

  it("XML, by the merchant's shopper id: answers <message><description>", async () => {
    const merchant = await stack.newMerchant();
    const shopperId = await newShopper(merchant, [visa], 'xml-shopper');
    const deleted = expectStatus(
      await api.delete('/vaulted-shoppers/merchant/xml-shopper', as(merchant, { accept: 'application/xml' })),
      200,
    );
    expect(deleted.text).toMatch(
      /<message xmlns="http:\/\/ws\.plimus\.com"><description>[^<]+<\/description><\/message>/,
    );
    expect((await cardsOf(shopperId))[0]?.sealed_number).toBeNull();
    const again = await api.delete(
      '/vaulted-shoppers/merchant/xml-shopper',
      as(merchant, { accept: 'application/xml' }),
    );
    expect(again.status).toBe(404);
    expect(again.text).toContain('<error-name>SHOPPER_NOT_FOUND</error-name>');
  });

  it("is refused while a subscription may charge the shopper, and another merchant's shopper is not found", async () => {
    const merchant = await stack.newMerchant();
    const shopperId = await newShopper(merchant, [visa]);
    const planId = await createPlan(api, merchant);
    expectStatus(
      await api.post('/recurring/subscriptions', { planId, vaultedShopperId: shopperId }, as(merchant)),
      200,
    );
    const refused = await api.delete(`/vaulted-shoppers/${shopperId}`, as(merchant));
    expect(failure(refused)).toMatchObject({
      status: 400,
      code: 10001,
      property: 'vaultedShopperId',
    });
    const removal = await api.put(
      `/vaulted-shoppers/${shopperId}`,
      {
        paymentSources: {
          creditCardInfo: [{ status: 'D', creditCard: { cardType: 'VISA', cardLastFourDigits: '9299' } }],
        },
      },
      as(merchant),
    );
    expect(failure(removal)).toMatchObject({ status: 400, code: 10001 });
    expect((await cardsOf(shopperId))[0]?.sealed_number).toMatch(/\S/);

    const stranger = await stack.newMerchant();
    expect((await api.delete(`/vaulted-shoppers/${shopperId}`, as(stranger))).status).toBe(404);
    expect((await api.delete('/vaulted-shoppers/not-a-number', as(merchant))).status).toBe(400);
    expect(await auditActions(merchant.id)).not.toContain(`shopper.delete shopper:${shopperId}`);
  });
});

describe('removing a payment source (status D)', () => {
  it('JSON: the named card leaves the database, the other stays, the removal is audited', async () => {
    const merchant = await stack.newMerchant();
    const shopperId = await newShopper(merchant, [visa, mastercard]);
    const updated = expectStatus(
      await api.put(
        `/vaulted-shoppers/${shopperId}`,
        {
          paymentSources: {
            creditCardInfo: [{ status: 'D', creditCard: { cardType: 'VISA', cardLastFourDigits: '9299' } }],
          },
        },
        as(merchant),
      ),
      200,
    );
    expect(
      updated.body.paymentSources.creditCardInfo.map(
        (info: { creditCard: { cardLastFourDigits: string } }) => info.creditCard.cardLastFourDigits,
      ),
    ).toEqual(['9903']);
    const [removed, kept] = await cardsOf(shopperId);
    expect(removed).toMatchObject({ last_four: '9299', sealed_number: null, fingerprint: null });
    expect(kept?.sealed_number).toMatch(/\S/);
    const events = await auditActions(merchant.id);
    expect(events.filter((event) => event.startsWith('shopper-card.remove'))).toHaveLength(1);

    // The remaining card pays; the same card sent again is vaulted anew.
    const sale = await api.post(
      '/transactions',
      { cardTransactionType: 'AUTH_CAPTURE', amount: 5, currency: 'USD', vaultedShopperId: shopperId },
      as(merchant),
    );
    expect(expectStatus(sale, 200).body.creditCard.cardLastFourDigits).toBe('9903');
    const readded = expectStatus(
      await api.put(
        `/vaulted-shoppers/${shopperId}`,
        { paymentSources: { creditCardInfo: [{ creditCard: visa }] } },
        as(merchant),
      ),
      200,
    );
    expect(readded.body.paymentSources.creditCardInfo).toHaveLength(2);
  });

  it('XML: <status>D</status> removes the last card; the shopper then has none to charge', async () => {
    const merchant = await stack.newMerchant();
    const shopperId = await newShopper(merchant, [mastercard]);
    const updated = expectStatus(
      await api.put(
        `/vaulted-shoppers/${shopperId}`,
        xmlDocument('vaulted-shopper', {
          paymentSources: {
            creditCardInfo: {
              status: 'D',
              creditCard: { cardType: 'MASTERCARD', cardLastFourDigits: '9903' },
            },
          },
        }),
        as(merchant, { format: 'xml' }),
      ),
      200,
    );
    expect(updated.text).not.toContain('<credit-card-info>');
    expect((await cardsOf(shopperId))[0]?.sealed_number).toBeNull();
    const sale = await api.post(
      '/transactions',
      { cardTransactionType: 'AUTH_CAPTURE', amount: 5, currency: 'USD', vaultedShopperId: shopperId },
      as(merchant),
    );
    expect(failure(sale)).toMatchObject({ status: 400, errorName: 'INVALID_PAYMENT_DETAILS' });
  });

  it('bad input: an unknown status, a card the shopper lacks, a bad last four; nothing half-written', async () => {
    const merchant = await stack.newMerchant();
    const shopperId = await newShopper(merchant, [visa]);
    const put = (creditCardInfo: object[]) =>
      api.put(
        `/vaulted-shoppers/${shopperId}`,
        { firstName: 'Changed', paymentSources: { creditCardInfo } },
        as(merchant),
      );

    expect(
      failure(await put([{ status: 'X', creditCard: { cardType: 'VISA', cardLastFourDigits: '9299' } }])),
    ).toMatchObject({
      status: 400,
      code: 10001,
      property: 'paymentSources.creditCardInfo.0.status',
    });
    expect(
      failure(await put([{ status: 'D', creditCard: { cardType: 'VISA', cardLastFourDigits: '92' } }])),
    ).toMatchObject({
      status: 400,
      code: 10001,
      property: 'paymentSources.creditCardInfo.0.creditCard.cardLastFourDigits',
    });
    // A valid removal before a card the shopper lacks: the whole update is refused.
    const lacking = await put([
      { status: 'D', creditCard: { cardType: 'VISA', cardLastFourDigits: '9299' } },
      { status: 'D', creditCard: { cardType: 'AMEX', cardLastFourDigits: '0126' } },
    ]);
    expect(failure(lacking)).toMatchObject({
      status: 400,
      code: 10001,
      property: 'paymentSources.creditCardInfo.1.creditCard',
    });
    expect((await cardsOf(shopperId))[0]?.sealed_number).toMatch(/\S/);
    const shopper = expectStatus(await api.get(`/vaulted-shoppers/${shopperId}`, as(merchant)), 200);
    expect(shopper.body.firstName).toBe('Ada');
    expect((await auditActions(merchant.id)).some((event) => event.startsWith('shopper-card'))).toBe(false);
  });
});
