import { createHmac, randomBytes } from 'node:crypto';
import { createPaywireClient } from '@paywire/client';
import { createSandboxProcessor, type Processor } from '@paywire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processUnprocessed } from '../../apps/core/src/processors/adyen/notifications.ts';
import { as, client, expectStatus, saleBody } from '../support/http.ts';
import { hookConfig, type IpnReceiver, startIpnReceiver } from '../support/ipn-receiver.ts';
import { type Stack, startStack } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

// Adyen's notifications over real HTTP. The sandbox connector is wrapped so captures, cancels and refunds
// answer `received`, as Adyen's do: the attempt is left AWAITING, and the test then puts the transaction
// and the attempt on an Adyen account row (as an Adyen authorization would have), so only the notification
// can settle it. Notifications are signed here, by Adyen's algorithm, not by the code under test.

const hmacKey = randomBytes(32).toString('hex');
const notifier = { username: 'adyen-notifier', password: 'notification-password-1' };
const merchantAccountCode = 'PaywireECOM';

let stack: Stack;
let api: ReturnType<typeof client>;
let receiver: IpnReceiver;
let hook: string;
let accountId: number;

function modificationsReceived(sandbox: Processor): Processor {
  return {
    connector: 'sandbox',
    authorize: (request) => sandbox.authorize(request),
    inquire: (reference) => sandbox.inquire(reference),
    technicalCancel: (reference) => sandbox.technicalCancel(reference),
    capture: async () => ({ status: 'received' }),
    cancel: async () => ({ status: 'received' }),
    refund: async () => ({ status: 'received' }),
  };
}

beforeAll(async () => {
  stack = await startStack({ sandbox: modificationsReceived(createSandboxProcessor()) });
  api = client(stack);
  receiver = await startIpnReceiver();
  const operator = createPaywireClient({
    url: stack.core.url,
    credential: await stack.issueCredential({ name: 'operator', scope: 'admin' }),
  });
  const account = await operator.processors.add.mutate({
    merchantId: stack.merchant.id,
    name: 'adyen-eu',
    connector: 'adyen',
    environment: 'test',
    merchantAccount: merchantAccountCode,
    credentials: {
      apiKey: 'AQE1hmfxKo3NaxZDw0m_test_key',
      hmacKey,
      notificationUsername: notifier.username,
      notificationPassword: notifier.password,
    },
    default: false,
  });
  accountId = account.id;
  // payments are routed to a sandbox account; their rows are moved to the Adyen account afterwards
  await operator.processors.add.mutate({
    merchantId: stack.merchant.id,
    name: 'sandbox',
    connector: 'sandbox',
    environment: 'test',
    merchantAccount: 'sandbox',
    default: true,
  });
  hook = receiver.newHook();
  const flags = ['sendCharge', 'sendCancellation', 'sendRefund', 'sendChargeback'];
  const config = hookConfig(hook, flags);
  expectStatus(await api.post('/notification-config', config, as(stack.merchant)), 200);
});

afterAll(async () => {
  await receiver?.close();
  await stack?.close();
});

const pspReference = () => randomBytes(8).toString('hex').toUpperCase();

interface ItemFields {
  pspReference: string;
  originalReference?: string;
  merchantReference: string;
  eventCode: string;
  success: 'true' | 'false';
  value: number;
  currency?: string;
  additionalData?: Record<string, string>;
  reason?: string;
}

/** A NotificationRequestItem signed as Adyen signs it (HmacValidator's eight fields, HMAC-SHA256, base64). */
function signedItem(fields: ItemFields, key = hmacKey) {
  const currency = fields.currency ?? 'USD';
  const signed = [
    fields.pspReference,
    fields.originalReference ?? '',
    merchantAccountCode,
    fields.merchantReference,
    fields.value,
    currency,
    fields.eventCode,
    fields.success,
  ].join(':');
  const hmacSignature = createHmac('sha256', Buffer.from(key, 'hex')).update(signed).digest('base64');
  return {
    NotificationRequestItem: {
      pspReference: fields.pspReference,
      ...(fields.originalReference ? { originalReference: fields.originalReference } : {}),
      merchantAccountCode,
      merchantReference: fields.merchantReference,
      eventCode: fields.eventCode,
      eventDate: '2026-11-26T06:00:00+01:00',
      amount: { value: fields.value, currency },
      success: fields.success,
      paymentMethod: 'visa',
      reason: fields.reason ?? '',
      additionalData: { ...fields.additionalData, hmacSignature },
    },
  };
}

const basic = (username: string, password: string) =>
  `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

async function notify(
  items: unknown[],
  authorization = basic(notifier.username, notifier.password),
  account = accountId,
) {
  const origin = new URL(stack.baseUrl).origin;
  const response = await fetch(`${origin}/processors/adyen/${account}/notifications`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ live: 'false', notificationItems: items }),
  });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

/**
 * A transaction of the Adyen account with a modification AWAITING its notification: `start` runs the
 * modification through the API, then the rows are moved to the account as an Adyen authorization would
 * have left them (its pspReference on the transaction, the attempt on the account).
 */
async function awaiting(
  kind: 'AUTH_ONLY' | 'AUTH_CAPTURE',
  start: (transactionId: string) => Promise<void>,
  sale: Record<string, unknown> = {},
) {
  const { transactionId } = expectStatus(
    await api.post(
      '/transactions',
      saleBody({ cardTransactionType: kind, amount: 20, ...sale }),
      as(stack.merchant),
    ),
    200,
  ).body as { transactionId: string };
  // the sandbox account takes the call (Adyen's connector would need Adyen), then the rows move
  await start(transactionId);
  const authorization = pspReference();
  await stack.db.query(
    'update card_transaction set processor_account_id = $1, processor_reference = $2 where id = $3',
    [accountId, authorization, transactionId],
  );
  const { rows } = await stack.db.query<{ reference: string }>(
    `update payment_attempt set processor_account_id = $1 where transaction_id = $2 and state = 'AWAITING'
       returning reference`,
    [accountId, transactionId],
  );
  return { transactionId, authorization, reference: rows[0]?.reference ?? '' };
}

const capture = (transactionId: string) =>
  api
    .put('/transactions', { cardTransactionType: 'CAPTURE', transactionId }, as(stack.merchant))
    .then((reply) => void expectStatus(reply, 200));

const refund = (transactionId: string) =>
  api
    .put(`/transactions/${transactionId}/refund?amount=5`, undefined, as(stack.merchant))
    .then((reply) => void expectStatus(reply, 204));

/** Adyen's word that the 5.00 refund of attempt `reference` on the authorization failed. */
const refundFailed = (authorization: string, reference: string) =>
  notify([
    signedItem({
      pspReference: pspReference(),
      originalReference: authorization,
      merchantReference: reference,
      eventCode: 'REFUND',
      success: 'false',
      value: 500,
      reason: 'Insufficient balance on payment',
    }),
  ]);

async function attemptState(reference: string) {
  const { rows } = await stack.db.query<{ state: string }>(
    'select state from payment_attempt where reference = $1',
    [reference],
  );
  return rows[0]?.state;
}

async function deliveries(event: string, transactionId: string) {
  const { rows } = await stack.db.query<{ body: string }>(
    'select body from ipn_delivery where merchant_id = $1 and event = $2 and reference_number = $3',
    [stack.merchant.id, event, transactionId],
  );
  return rows.map((row) => new URLSearchParams(row.body));
}

async function storedNotifications(psp: string) {
  const { rows } = await stack.db.query<{ processed_at: Date | null }>(
    'select processed_at from processor_notification where psp_reference = $1',
    [psp],
  );
  return rows;
}

describe('a modification confirmed by notification', () => {
  it('moves the capture to DONE and sends one Charge IPN; a repeat changes and sends nothing', async () => {
    const { transactionId, authorization, reference } = await awaiting('AUTH_ONLY', capture);
    expect(await attemptState(reference)).toBe('AWAITING');
    expect(await deliveries('Charge', transactionId)).toEqual([]);

    const psp = pspReference();
    const item = signedItem({
      pspReference: psp,
      originalReference: authorization,
      merchantReference: reference,
      eventCode: 'CAPTURE',
      success: 'true',
      value: 2000,
    });
    expect(await notify([item])).toEqual({
      status: 200,
      type: 'text/plain; charset=utf-8',
      text: '[accepted]',
    });
    expect(await attemptState(reference)).toBe('DONE');
    const charges = await deliveries('Charge', transactionId);
    expect(charges).toHaveLength(1);
    expect(charges[0]?.get('invoiceAmount')).toBe('20.00');
    await waitFor('the Charge IPN', () =>
      receiver
        .at(hook)
        .find(
          (ipn) =>
            ipn.params.get('transactionType') === 'CHARGE' &&
            ipn.params.get('referenceNumber') === transactionId,
        ),
    );

    expect((await notify([item])).status).toBe(200);
    expect(await storedNotifications(psp)).toHaveLength(1);
    expect(await deliveries('Charge', transactionId)).toHaveLength(1);
    const { rows } = await stack.db.query(
      'select status, captured_minor from card_transaction where id = $1',
      [transactionId],
    );
    expect(rows[0]).toEqual({ status: 'CAPTURED', captured_minor: '2000' });
  });

  it('undoes a refund reported failed: the balance is back, the refund row gone, no Refund IPN', async () => {
    const { transactionId, authorization, reference } = await awaiting('AUTH_CAPTURE', refund);
    const before = await stack.db.query('select refunded_minor from card_transaction where id = $1', [
      transactionId,
    ]);
    expect(before.rows[0]).toEqual({ refunded_minor: '500' });

    const reply = await refundFailed(authorization, reference);
    expect(reply.status).toBe(200);
    expect(await attemptState(reference)).toBe('FAILED');
    const after = await stack.db.query(
      'select status, refunded_minor, (select count(*) from refund where transaction_id = $1) as refunds from card_transaction where id = $1',
      [transactionId],
    );
    expect(after.rows[0]).toEqual({ status: 'CAPTURED', refunded_minor: '0', refunds: '0' });
    expect(await deliveries('Refund', transactionId)).toEqual([]);
  });

  it("undoes a split sale's failed refund with its vendor's part: the whole share is refundable again", async () => {
    const vendor = expectStatus(
      await api.post('/vendors', { email: 'cakes@example.com', country: 'DE' }, as(stack.merchant)),
      201,
    );
    const location = vendor.headers.get('location') ?? '';
    const vendorId = Number(location.slice(location.lastIndexOf('/') + 1));
    const refundWithVendor = (transactionId: string) =>
      api
        .put(
          `/transactions/${transactionId}/refund?amount=5&vendor.${vendorId}.amount=3`,
          undefined,
          as(stack.merchant),
        )
        .then((reply) => void expectStatus(reply, 204));
    const { transactionId, authorization, reference } = await awaiting('AUTH_CAPTURE', refundWithVendor, {
      vendorInfo: { vendorId, commissionAmount: 4 },
    });
    const vendorState = async () =>
      (
        await stack.db.query(
          `select s.refunded_minor::int as refunded,
                  (select count(*)::int from vendor_refund vr where vr.vendor_id = s.vendor_id) as parts
             from vendor_split s where s.transaction_id = $1`,
          [transactionId],
        )
      ).rows[0];
    expect(await vendorState()).toEqual({ refunded: 300, parts: 1 });

    const reply = await refundFailed(authorization, reference);
    expect(reply.status).toBe(200);
    expect(await attemptState(reference)).toBe('FAILED');
    expect(await vendorState()).toEqual({ refunded: 0, parts: 0 });
  });
});

describe('cancels and failed captures', () => {
  const reverse = (transactionId: string) =>
    api
      .put('/transactions', { cardTransactionType: 'AUTH_REVERSAL', transactionId }, as(stack.merchant))
      .then((reply) => void expectStatus(reply, 200));

  it('sends one Cancellation IPN for a confirmed cancel', async () => {
    const { transactionId, authorization, reference } = await awaiting('AUTH_ONLY', reverse);
    const reply = await notify([
      signedItem({
        pspReference: pspReference(),
        originalReference: authorization,
        merchantReference: reference,
        eventCode: 'CANCELLATION',
        success: 'true',
        value: 2000,
      }),
    ]);
    expect(reply.status).toBe(200);
    expect(await attemptState(reference)).toBe('DONE');
    expect(await deliveries('Cancellation', transactionId)).toHaveLength(1);
  });

  it('reopens the authorization when the capture failed, with no Charge IPN', async () => {
    const { transactionId, authorization, reference } = await awaiting('AUTH_ONLY', capture);
    const reply = await notify([
      signedItem({
        pspReference: pspReference(),
        originalReference: authorization,
        merchantReference: reference,
        eventCode: 'CAPTURE',
        success: 'false',
        value: 2000,
        reason: 'Insufficient balance on payment',
      }),
    ]);
    expect(reply.status).toBe(200);
    expect(await attemptState(reference)).toBe('FAILED');
    const { rows } = await stack.db.query(
      'select status, captured_minor from card_transaction where id = $1',
      [transactionId],
    );
    expect(rows[0]).toEqual({ status: 'AUTHORIZED', captured_minor: '0' });
    expect(await deliveries('Charge', transactionId)).toEqual([]);
  });
});

describe('the janitor', () => {
  it('processes an item a dead core stored but never processed', async () => {
    const { transactionId, authorization, reference } = await awaiting('AUTH_ONLY', capture);
    const { NotificationRequestItem: item } = signedItem({
      pspReference: pspReference(),
      originalReference: authorization,
      merchantReference: reference,
      eventCode: 'CAPTURE',
      success: 'true',
      value: 2000,
    });
    await stack.db.query(
      `insert into processor_notification (account_id, merchant_id, psp_reference, original_reference,
         merchant_reference, event_code, success, body, received_at)
       values ($1, $2, $3, $4, $5, 'CAPTURE', true, $6, now() - interval '2 minutes')`,
      [accountId, stack.merchant.id, item.pspReference, authorization, reference, JSON.stringify(item)],
    );
    expect(await processUnprocessed(stack.core.services, 60)).toBeGreaterThanOrEqual(1);
    // the worker's own janitor run may have taken the item first: either settles it
    await waitFor('the attempt settled', async () => (await attemptState(reference)) === 'DONE');
    expect(await deliveries('Charge', transactionId)).toHaveLength(1);
    expect((await storedNotifications(item.pspReference))[0]?.processed_at).toBeInstanceOf(Date);
  });
});

describe('a chargeback', () => {
  it('is recorded once with one Chargeback IPN', async () => {
    const { transactionId, authorization } = await awaiting('AUTH_CAPTURE', async () => {});
    const dispute = pspReference();
    const item = signedItem({
      pspReference: dispute,
      originalReference: authorization,
      merchantReference: 'the payment',
      eventCode: 'CHARGEBACK',
      success: 'true',
      value: 2000,
      reason: 'Fraud - card absent environment',
      additionalData: { chargebackReasonCode: ' 10.4', chargebackSchemeCode: 'visa' },
    });
    expect((await notify([item])).status).toBe(200);
    expect((await notify([item])).status).toBe(200);

    const { rows } = await stack.db.query(
      `select transaction_id, processor_account_id, amount_minor, currency, reason_code, reason, status
         from chargeback where psp_reference = $1`,
      [dispute],
    );
    expect(rows).toEqual([
      {
        transaction_id: transactionId,
        processor_account_id: accountId,
        amount_minor: '2000',
        currency: 'USD',
        reason_code: '10.4',
        reason: 'Fraud - card absent environment',
        status: 'NEW',
      },
    ]);
    const chargebacks = await deliveries('Chargeback', transactionId);
    expect(chargebacks).toHaveLength(1);
    expect(Object.fromEntries(chargebacks[0] ?? [])).toMatchObject({
      transactionType: 'CHARGEBACK',
      referenceNumber: transactionId,
      chargebackAmount: '20.00',
      chargebackStatus: 'NEW',
      chargebackReasonCode: '10.4',
    });
  });
});

describe('refusals', () => {
  const unsigned = (psp: string) =>
    signedItem({
      pspReference: psp,
      merchantReference: 'x',
      eventCode: 'AUTHORISATION',
      success: 'true',
      value: 1,
    });

  it('answers 401 to a forged signature and stores none of the items', async () => {
    const genuine = pspReference();
    const forged = pspReference();
    const reply = await notify([
      unsigned(genuine),
      signedItem(
        {
          pspReference: forged,
          merchantReference: 'x',
          eventCode: 'AUTHORISATION',
          success: 'true',
          value: 1,
        },
        randomBytes(32).toString('hex'),
      ),
    ]);
    expect(reply.status).toBe(401);
    expect(await storedNotifications(genuine)).toEqual([]);
    expect(await storedNotifications(forged)).toEqual([]);
  });

  it('answers 401 to wrong or missing Basic credentials, and for another account', async () => {
    const psp = pspReference();
    expect((await notify([unsigned(psp)], basic(notifier.username, 'wrong'))).status).toBe(401);
    expect((await notify([unsigned(psp)], '')).status).toBe(401);
    expect((await notify([unsigned(psp)], undefined, accountId + 1000)).status).toBe(401);
    expect(await storedNotifications(psp)).toEqual([]);
  });

  it('answers 400 to a body that is not a notification', async () => {
    expect((await notify([{ NotificationRequestItem: { pspReference: 'x' } }])).status).toBe(400);
    expect((await notify([])).status).toBe(400);
  });

  it('stores an AUTHORISATION and marks it processed without acting on it', async () => {
    const psp = pspReference();
    expect((await notify([unsigned(psp)])).status).toBe(200);
    const rows = await storedNotifications(psp);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.processed_at).toBeInstanceOf(Date);
  });
});
