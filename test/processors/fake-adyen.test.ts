import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAdyen, type NotificationItem, startFakeAdyen } from '../support/fake-adyen/index.ts';

/**
 * The fake Adyen proves itself here: it refuses what Adyen refuses, keeps payments as Adyen does,
 * replays idempotent requests, injects the faults tests ask for, and signs its notifications so that
 * an independent computation of Adyen's HMAC scheme verifies them.
 */

const apiKey = 'test-api-key';
const merchantAccount = 'PaywireTestECOM';
const hmacKeyHex = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';

interface Received {
  headers: IncomingHttpHeaders;
  live: unknown;
  item: NotificationItem;
}

/** A notification endpoint that refuses the first `refusals` deliveries, then accepts. */
function receiver() {
  const received: Received[] = [];
  let refusals = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      received.push({
        headers: request.headers,
        live: body.live,
        item: body.notificationItems[0].NotificationRequestItem,
      });
      if (refusals > 0) {
        refusals--;
        response.writeHead(500).end('not now');
      } else response.writeHead(200, { 'content-type': 'text/plain' }).end('[accepted]');
    });
  });
  return {
    received,
    refuseNext: (n: number) => {
      refusals = n;
    },
    listen: async () => {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/adyen`;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Adyen's HMAC scheme computed here, independently of the fake's own code. */
function expectedSignature(item: NotificationItem): string {
  const data = [
    item.pspReference,
    item.originalReference ?? '',
    item.merchantAccountCode,
    item.merchantReference,
    String(item.amount.value),
    item.amount.currency,
    item.eventCode,
    item.success,
  ].join(':');
  return createHmac('sha256', Buffer.from(hmacKeyHex, 'hex')).update(data).digest('base64');
}

let fake: FakeAdyen;
const hooks = receiver();
let reference = 0;

beforeAll(async () => {
  fake = await startFakeAdyen({
    apiKey,
    merchantAccount,
    hmacKeyHex,
    notify: { url: await hooks.listen(), username: 'adyen', password: 'hook-secret' },
  });
});
afterAll(async () => {
  await fake?.close();
  await hooks.close();
});
afterEach(() => {
  // A test that sends something invalid on purpose empties the list itself. Emptied here too, so that one
  // test that failed before it could does not fail every test after it.
  expect(fake.violations.splice(0)).toEqual([]);
});

interface Reply {
  status: number;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
  json: any;
}

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const answer = await fetch(`${fake.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey, ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000), // a bound on a hang: the fake validates every request, slowly under load
  });
  const text = await answer.text();
  return { status: answer.status, text, json: JSON.parse(text) };
}

function payment(overrides: Record<string, unknown> = {}, card: Record<string, unknown> = {}) {
  reference++;
  return {
    amount: { currency: 'EUR', value: 1000 },
    reference: `order-${reference}`,
    merchantAccount,
    returnUrl: 'https://merchant.example/return',
    paymentMethod: {
      type: 'scheme',
      number: '4111111111111111',
      expiryMonth: '03',
      expiryYear: '2030',
      cvc: '737',
      holderName: 'Jane Shopper',
      ...card,
    },
    ...overrides,
  };
}

const notificationsFor = (pspReference: string) =>
  hooks.received.filter(
    (r) => r.item.pspReference === pspReference || r.item.originalReference === pspReference,
  );

async function settled() {
  await fake.notificationsSettled();
}

describe('refusals before processing', () => {
  it('refuses a request the document refuses with a 422 in Adyen error shape, and records it', async () => {
    const { amount: _, ...withoutAmount } = payment();
    const reply = await post('/payments', withoutAmount);
    expect(reply.status).toBe(422);
    expect(reply.json).toEqual({
      status: 422,
      errorCode: '702',
      message: "Required field 'amount' is not provided.",
      errorType: 'validation',
    });
    expect(fake.violations).toHaveLength(1);
    expect(fake.violations[0]).toContain('PaymentRequest');
    fake.violations.length = 0;
    expect(fake.byReference(withoutAmount.reference)).toBeUndefined();
  });

  it('answers 401 without the API key and 422/901 for another merchant account', async () => {
    const noKey = await post('/payments', payment(), { 'x-api-key': 'wrong' });
    expect(noKey.status).toBe(401);
    expect(noKey.json).toMatchObject({ status: 401, errorType: 'security' });
    const otherAccount = await post('/payments', payment({ merchantAccount: 'SomeoneElse' }));
    expect(otherAccount.json).toEqual({
      status: 422,
      errorCode: '901',
      message: 'Invalid Merchant Account',
      errorType: 'security',
    });
  });

  it('refuses a card number that fails the Luhn check and ciphertext it cannot read', async () => {
    expect((await post('/payments', payment({}, { number: '4111111111111112' }))).json).toMatchObject({
      status: 422,
      errorCode: '101',
    });
    const encrypted = payment({}, { number: undefined, encryptedCardNumber: 'adyenjs_0_1_25$abc' });
    expect((await post('/payments', encrypted)).json).toMatchObject({ status: 422, errorCode: '174' });
  });
});

describe('authorisations', () => {
  it('authorises a test card with the fields Adyen returns and notifies AUTHORISATION', async () => {
    const request = payment();
    const reply = await post('/payments', request);
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({
      resultCode: 'Authorised',
      merchantReference: request.reference,
      paymentMethod: { brand: 'visa', type: 'scheme' },
      additionalData: { cvcResult: '1 Matches', avsResult: '5 No AVS data provided' },
    });
    expect(reply.json.pspReference).toMatch(/^[0-9A-Z]{16}$/);
    expect(reply.json.additionalData.authCode).toMatch(/^\d{6}$/);
    expect(reply.json.additionalData.networkTxReference).toMatch(/^\d+$/);
    expect(fake.book.get(reply.json.pspReference)).toMatchObject({
      merchantReference: request.reference,
      authorisedMinor: 1000,
      capturedMinor: 0,
      resultCode: 'Authorised',
    });
    await settled();
    const [notice] = notificationsFor(reply.json.pspReference);
    expect(notice?.item).toMatchObject({
      eventCode: 'AUTHORISATION',
      success: 'true',
      paymentMethod: 'visa',
    });
  });

  it('captures with the authorisation when captureDelayHours is 0', async () => {
    const reply = await post('/payments', payment({ captureDelayHours: 0 }));
    expect(fake.book.get(reply.json.pspReference)).toMatchObject({
      authorisedMinor: 1000,
      capturedMinor: 1000,
    });
  });

  it.each([
    ['DECLINED', 'Refused', 'Refused', '2'],
    ['REFERRAL', 'Refused', 'Referral', '3'],
    ['ERROR', 'Error', 'Acquirer Error', '4'],
    ['BLOCK_CARD', 'Refused', 'Blocked Card', '5'],
    ['CARD_EXPIRED', 'Refused', 'Expired Card', '6'],
    ['NOT_ENOUGH_BALANCE', 'Refused', 'Not enough balance', '12'],
    ['ACQUIRER_FRAUD', 'Refused', 'Acquirer Fraud', '14'],
    ['CVC_DECLINED', 'Refused', 'CVC Declined', '24'],
  ])(
    'holder name %s gives %s / %s (%s)',
    async (holderName, resultCode, refusalReason, refusalReasonCode) => {
      const reply = await post('/payments', payment({}, { holderName }));
      expect(reply.json).toMatchObject({ resultCode, refusalReason, refusalReasonCode });
      expect(fake.book.get(reply.json.pspReference)).toMatchObject({
        resultCode,
        authorisedMinor: 0,
        refusalReason,
      });
    },
  );

  it('refuses a wrong CVC or a past expiry generically, as Adyen documents', async () => {
    expect((await post('/payments', payment({}, { cvc: '123' }))).json).toMatchObject({
      resultCode: 'Refused',
      refusalReasonCode: '2',
      additionalData: { cvcResult: '2 Does not match' },
    });
    expect((await post('/payments', payment({}, { expiryYear: '2020' }))).json.refusalReasonCode).toBe('2');
  });

  it('reads test_ encrypted fields, stored cards, wallet tokens and 3-D Secure results', async () => {
    const encrypted = payment(
      {},
      {
        number: undefined,
        expiryMonth: undefined,
        expiryYear: undefined,
        cvc: undefined,
        encryptedCardNumber: 'test_5555555555554444',
        encryptedExpiryMonth: 'test_03',
        encryptedExpiryYear: 'test_2030',
        encryptedSecurityCode: 'test_737',
      },
    );
    expect((await post('/payments', encrypted)).json).toMatchObject({
      resultCode: 'Authorised',
      paymentMethod: { brand: 'mc' },
    });
    const stored = payment({
      paymentMethod: { type: 'scheme', storedPaymentMethodId: '8415718415172204' },
      shopperReference: 'shopper-1',
      shopperInteraction: 'ContAuth',
      recurringProcessingModel: 'CardOnFile',
    });
    expect((await post('/payments', stored)).json.resultCode).toBe('Authorised');
    const wallet = payment({ paymentMethod: { type: 'googlepay', googlePayToken: '{"signature":"x"}' } });
    expect((await post('/payments', wallet)).json.resultCode).toBe('Authorised');
    const unauthenticated = payment({ mpiData: { directoryResponse: 'N', eci: '07' } });
    expect((await post('/payments', unauthenticated)).json).toMatchObject({
      resultCode: 'Refused',
      refusalReasonCode: '11',
    });
  });
});

describe('modifications', () => {
  async function authorised(value = 1000) {
    const reply = await post('/payments', payment({ amount: { currency: 'EUR', value } }));
    return reply.json.pspReference as string;
  }
  const modify = (psp: string, kind: string, body: Record<string, unknown> = {}) =>
    post(`/payments/${psp}/${kind}`, { merchantAccount, ...body });

  it('captures and refunds in parts, moving the book and notifying each outcome', async () => {
    const psp = await authorised();
    const capture = await modify(psp, 'captures', {
      amount: { currency: 'EUR', value: 600 },
      reference: 'cap-1',
    });
    expect(capture.status).toBe(201);
    expect(capture.json).toMatchObject({
      status: 'received',
      paymentPspReference: psp,
      merchantAccount,
      reference: 'cap-1',
      amount: { currency: 'EUR', value: 600 },
    });
    const refund = await modify(psp, 'refunds', { amount: { currency: 'EUR', value: 200 } });
    expect(refund.status).toBe(201);
    expect(fake.book.get(psp)).toMatchObject({
      authorisedMinor: 1000,
      capturedMinor: 600,
      refundedMinor: 200,
    });
    expect(fake.book.get(psp)?.modifications.map((m) => [m.type, m.amountMinor, m.success])).toEqual([
      ['capture', 600, true],
      ['refund', 200, true],
    ]);
    await settled();
    expect(notificationsFor(psp).map((n) => [n.item.eventCode, n.item.success, n.item.amount.value])).toEqual(
      [
        ['AUTHORISATION', 'true', 1000],
        ['CAPTURE', 'true', 600],
        ['REFUND', 'true', 200],
      ],
    );
  });

  it('receives a capture above the authorisation, a refund above the capture and a cancel after capture, then fails them', async () => {
    const psp = await authorised();
    expect((await modify(psp, 'captures', { amount: { currency: 'EUR', value: 1001 } })).status).toBe(201);
    expect((await modify(psp, 'captures', { amount: { currency: 'EUR', value: 1000 } })).status).toBe(201);
    expect((await modify(psp, 'refunds', { amount: { currency: 'EUR', value: 1001 } })).status).toBe(201);
    expect((await modify(psp, 'cancels')).status).toBe(201);
    expect(fake.book.get(psp)).toMatchObject({ capturedMinor: 1000, refundedMinor: 0, cancelled: false });
    await settled();
    expect(notificationsFor(psp).map((n) => [n.item.eventCode, n.item.success, n.item.reason])).toEqual([
      ['AUTHORISATION', 'true', undefined],
      ['CAPTURE', 'false', 'Insufficient balance on payment'],
      ['CAPTURE', 'true', undefined],
      ['REFUND', 'false', 'Insufficient balance on payment'],
      ['CANCELLATION', 'false', 'Payment has been captured'],
    ]);
  });

  it('reverses by cancelling an uncaptured payment and by refunding a captured one', async () => {
    const open = await authorised();
    expect((await modify(open, 'reversals', { reference: 'rev-1' })).json).toMatchObject({
      status: 'received',
      paymentPspReference: open,
      reference: 'rev-1',
    });
    expect(fake.book.get(open)).toMatchObject({ cancelled: true, refundedMinor: 0 });
    const captured = await authorised();
    await modify(captured, 'captures', { amount: { currency: 'EUR', value: 1000 } });
    await modify(captured, 'reversals');
    expect(fake.book.get(captured)).toMatchObject({ cancelled: false, refundedMinor: 1000 });
    await settled();
    const actions = [open, captured].map(
      (psp) =>
        notificationsFor(psp).find((n) => n.item.eventCode === 'CANCEL_OR_REFUND')?.item.additionalData,
    );
    expect(actions.map((data) => data?.['modification.action'])).toEqual(['cancel', 'refund']);
  });

  it('cancels technically by the merchant reference', async () => {
    const request = payment();
    await post('/payments', request);
    const reply = await post('/cancels', {
      merchantAccount,
      paymentReference: request.reference,
      reference: 'tc-1',
    });
    expect(reply.status).toBe(201);
    expect(reply.json).toMatchObject({
      status: 'received',
      paymentReference: request.reference,
      reference: 'tc-1',
    });
    const cancelled = fake.byReference(request.reference);
    expect(cancelled).toMatchObject({ cancelled: true, technicallyCancelled: true });
    await settled();
    expect(notificationsFor(cancelled?.pspReference ?? '').at(-1)?.item).toMatchObject({
      eventCode: 'TECHNICAL_CANCEL',
      success: 'true',
      merchantReference: request.reference,
    });
    const unknown = await post('/cancels', { merchantAccount, paymentReference: 'never-sent' });
    expect(unknown.json.status).toBe('received');
    await settled();
    expect(notificationsFor(unknown.json.pspReference as string)[0]?.item).toMatchObject({
      eventCode: 'TECHNICAL_CANCEL',
      success: 'true',
      merchantReference: 'never-sent',
    });
  });

  it('refuses to cancel technically a payment captured already, as /cancels says', async () => {
    const request = payment({ captureDelayHours: 0 });
    await post('/payments', request);
    await post('/cancels', { merchantAccount, paymentReference: request.reference });
    const sale = fake.byReference(request.reference);
    expect(sale).toMatchObject({ cancelled: false, refundedMinor: 0 });
    await settled();
    expect(notificationsFor(sale?.pspReference ?? '').at(-1)?.item).toMatchObject({
      eventCode: 'TECHNICAL_CANCEL',
      success: 'false',
      reason: 'Payment has been captured',
    });
  });

  it('answers 422 for a modification of a payment it does not know', async () => {
    const reply = await modify('0000000000000000', 'captures', { amount: { currency: 'EUR', value: 1 } });
    expect(reply.json).toMatchObject({ status: 422, errorCode: '167', errorType: 'validation' });
  });
});

describe('idempotency', () => {
  it('replays the first answer byte for byte without moving state', async () => {
    const request = payment();
    const first = await post('/payments', request, { 'idempotency-key': 'key-1' });
    const again = await post('/payments', request, { 'idempotency-key': 'key-1' });
    expect(again.status).toBe(first.status);
    expect(again.text).toBe(first.text);
    expect([...fake.book.values()].filter((p) => p.merchantReference === request.reference)).toHaveLength(1);
    expect(fake.requests.filter((r) => r.idempotencyKey === 'key-1')).toHaveLength(2);
  });

  it('refuses the key reused for another request', async () => {
    await post('/payments', payment(), { 'idempotency-key': 'key-2' });
    const reused = await post('/payments', payment(), { 'idempotency-key': 'key-2' });
    expect(reused.json).toMatchObject({ status: 422, errorCode: '704' });
    expect(fake.violations).toEqual([expect.stringContaining('key-2')]);
    fake.violations.length = 0;
  });
});

describe('faults', () => {
  it('error500 answers 500 in Adyen shape without processing', async () => {
    fake.fault({ path: 'payments', kind: 'error500' });
    const request = payment();
    const reply = await post('/payments', request);
    expect(reply.json).toMatchObject({ status: 500, errorType: 'internal' });
    expect(fake.byReference(request.reference)).toBeUndefined();
    expect((await post('/payments', request)).status).toBe(200); // the fault was used up
  });

  it('timeout holds the socket until the client gives up, and processes nothing', async () => {
    fake.fault({ path: 'any', kind: 'timeout' });
    const request = payment();
    const attempt = fetch(`${fake.url}/payments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify(request),
      signal: AbortSignal.timeout(300),
    });
    await expect(attempt).rejects.toThrow();
    expect(fake.byReference(request.reference)).toBeUndefined();
  });

  it('approve-then-drop authorises, drops the answer, and a keyed retry replays the authorisation', async () => {
    fake.fault({ path: 'payments', kind: 'approve-then-drop' });
    const request = payment();
    await expect(post('/payments', request, { 'idempotency-key': 'dropped-1' })).rejects.toThrow();
    const authorised = fake.byReference(request.reference);
    expect(authorised).toMatchObject({ resultCode: 'Authorised', authorisedMinor: 1000 });
    const retry = await post('/payments', request, { 'idempotency-key': 'dropped-1' });
    expect(retry.json.pspReference).toBe(authorised?.pspReference);
  });

  it('slow processes, answers after the given time, and applies to `times` requests', async () => {
    // long enough that a loaded machine cannot make a plain answer look slow
    fake.fault({ path: 'captures', kind: 'slow', ms: 1500, times: 2 });
    const psp = (await post('/payments', payment())).json.pspReference;
    const elapsed: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      await post(`/payments/${psp}/captures`, { merchantAccount, amount: { currency: 'EUR', value: 100 } });
      elapsed.push(performance.now() - started);
    }
    expect(elapsed.map((ms) => ms >= 1490)).toEqual([true, true, false]);
    expect(fake.book.get(psp)?.capturedMinor).toBe(300);
  });

  it('setLatency delays every answer', async () => {
    fake.setLatency(120);
    const started = performance.now();
    await post('/payments', payment());
    expect(performance.now() - started).toBeGreaterThanOrEqual(110);
    fake.setLatency(0);
  });
});

describe('notifications', () => {
  it('are sent with HTTP Basic and a signature an independent HMAC computation verifies', async () => {
    const psp = (await post('/payments', payment())).json.pspReference;
    await post(`/payments/${psp}/captures`, { merchantAccount, amount: { currency: 'EUR', value: 1000 } });
    await settled();
    const notices = notificationsFor(psp);
    expect(notices).toHaveLength(2);
    for (const { headers, live, item } of notices) {
      expect(live).toBe('false');
      expect(headers.authorization).toBe(`Basic ${Buffer.from('adyen:hook-secret').toString('base64')}`);
      expect(item.additionalData?.hmacSignature).toBe(expectedSignature(item));
      expect(item.merchantAccountCode).toBe(merchantAccount);
    }
    expect(notices[1]?.item.originalReference).toBe(psp);
  });

  it('are retried until the receiver answers [accepted]', async () => {
    hooks.refuseNext(2);
    const psp = (await post('/payments', payment())).json.pspReference;
    await settled();
    expect(notificationsFor(psp)).toHaveLength(3);
    expect(fake.notifications.find((d) => d.item.pspReference === psp)).toMatchObject({
      accepted: true,
      status: 200,
    });
  });

  it('sendNotification signs any event and sendForged does not', async () => {
    const psp = (await post('/payments', payment())).json.pspReference;
    const chargeback = {
      pspReference: 'CB00000000000001',
      originalReference: psp,
      merchantReference: 'order-chargeback',
      amount: { currency: 'EUR', value: 1000 },
      eventCode: 'CHARGEBACK',
      success: 'true' as const,
      reason: 'Fraudulent transaction',
      additionalData: { chargebackReasonCode: '10.4', chargebackSchemeCode: 'visa' },
    };
    expect(await fake.sendNotification(chargeback)).toMatchObject({ accepted: true });
    const forged = await fake.sendForged({ ...chargeback, pspReference: 'CB00000000000002' });
    expect(forged.accepted).toBe(true); // this receiver does not check; the signature is what differs
    const [genuine, forgedItem] = ['CB00000000000001', 'CB00000000000002'].map(
      (id) => hooks.received.find((r) => r.item.pspReference === id)?.item,
    );
    expect(genuine?.additionalData?.hmacSignature).toBe(expectedSignature(genuine as NotificationItem));
    expect(forgedItem?.additionalData?.hmacSignature).not.toBe(
      expectedSignature(forgedItem as NotificationItem),
    );
  });

  it('refuse to send an item the Webhooks document refuses', async () => {
    await expect(
      fake.sendNotification({
        pspReference: 'X',
        merchantReference: 'r',
        amount: { currency: 'EURO', value: 1 },
        eventCode: 'CAPTURE',
        success: 'true',
      }),
    ).rejects.toThrow(/CaptureNotificationRequest/);
  });
});
