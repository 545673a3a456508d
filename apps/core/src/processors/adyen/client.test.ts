import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthorizationRequest, ProcessorRejected, ProcessorUnavailable } from '../processor.ts';
import { adyenEndpoint, createAdyenProcessor } from './client.ts';
import type { CancelConfirmation } from './confirmations.ts';
import type { NotificationRequestItem } from './hmac.ts';
import { paymentRequest } from './requests.ts';

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

/** A local stand-in answering each path as the test says, recording what arrived. */
let answer: (request: Received, response: ServerResponse) => void;
const received: Received[] = [];
let server: Server;
let endpoint: string;

beforeAll(async () => {
  server = createServer(async (request, response) => {
    let text = '';
    for await (const chunk of request) text += chunk;
    const entry = {
      method: request.method ?? '',
      url: request.url ?? '',
      headers: request.headers,
      body: JSON.parse(text),
    };
    received.push(entry);
    answer(entry, response);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v72`;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

const apiKey = 'AQE-secret-api-key';
/** Adyen's TECHNICAL_CANCEL notifications as the inbox would hold them, by attempt reference. */
const cancellations = new Map<string, CancelConfirmation>();
/** Its AUTHORISATION notifications, by attempt reference. */
const authorisations = new Map<string, NotificationRequestItem>();
const confirmations = {
  technicalCancelConfirmation: async (reference: string) => cancellations.get(reference),
  confirmationWaitMs: 300,
  authorisationNotice: async (reference: string) => authorisations.get(reference),
};
const processor = (timeoutMs = 2_000) =>
  createAdyenProcessor({ endpoint, apiKey, merchantAccount: 'PaywireECOM', timeoutMs, ...confirmations });

const sale: AuthorizationRequest = {
  reference: '2f6d3c2e-4a43-4b1a-9a55-0d7b5d0f5e61',
  amountMinor: 1050,
  currency: 'EUR',
  capture: true,
  now: new Date('2026-11-26T00:00:00Z'),
  card: {
    number: '4111111111111111',
    securityCode: '737',
    expirationMonth: '03',
    expirationYear: '2030',
    brand: 'VISA',
  },
};
const modification = {
  reference: 'a1b2c3d4-0000-4000-8000-000000000001',
  processorReference: 'PSP0000000000001',
  amountMinor: 500,
  currency: 'EUR',
};

/** The error a call ends in, checked to name no secret. */
async function failure(call: Promise<unknown>): Promise<Error> {
  const error = await call.then(
    () => undefined,
    (thrown: Error) => thrown,
  );
  if (!error) throw new Error('expected the call to fail');
  for (const secret of [apiKey, '4111111111111111', '737']) expect(error.message).not.toContain(secret);
  return error;
}

describe('Adyen connector over HTTP', () => {
  it('authorizes with the key, JSON and the attempt reference as idempotency key', async () => {
    answer = (_request, response) =>
      json(response, 200, {
        resultCode: 'Authorised',
        pspReference: 'PSP9',
        additionalData: { authCode: '123456', cvcResult: '1 Matches' },
      });
    received.length = 0;
    const approval = await processor().authorize(sale);
    expect(approval).toMatchObject({
      approved: true,
      processorReference: 'PSP9',
      authorizationCode: '123456',
    });
    const [request] = received;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/v72/payments');
    expect(request?.headers['x-api-key']).toBe(apiKey);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['idempotency-key']).toBe(sale.reference);
    expect(request?.body).toEqual(
      paymentRequest(sale, {
        merchantAccount: 'PaywireECOM',
        returnUrl: 'https://paywire.invalid/adyen/return',
      }),
    );
  });

  it('modifications name the pspReference; a technical cancel its own key', async () => {
    answer = (_request, response) => json(response, 201, { status: 'received', pspReference: 'MOD1' });
    received.length = 0;
    const adyen = processor();
    expect(await adyen.capture(modification)).toEqual({ status: 'received', processorReference: 'MOD1' });
    expect((await adyen.cancel(modification)).status).toBe('received');
    expect((await adyen.refund(modification)).status).toBe('received');
    cancellations.set(sale.reference, 'confirmed');
    expect((await adyen.technicalCancel(sale.reference)).status).toBe('done');
    expect(received.map((request) => [request.url, request.headers['idempotency-key']])).toEqual([
      ['/v72/payments/PSP0000000000001/captures', modification.reference],
      ['/v72/payments/PSP0000000000001/reversals', modification.reference],
      ['/v72/payments/PSP0000000000001/refunds', modification.reference],
      ['/v72/cancels', `${sale.reference}-technical-cancel`],
    ]);
    expect(received[3]?.body).toMatchObject({ paymentReference: sale.reference });
  });

  it('a technical cancel is done only once Adyen confirms it; refused or unconfirmed, the outcome is unknown', async () => {
    answer = (_request, response) => json(response, 201, { status: 'received', pspReference: 'TC1' });
    const adyen = processor();
    const later = '6c1f9a52-0b3e-4d7e-8f2a-1a2b3c4d5e6f';
    setTimeout(() => cancellations.set(later, 'confirmed'), 100); // the notification arrives while it waits
    expect(await adyen.technicalCancel(later)).toEqual({ status: 'done', processorReference: 'TC1' });
    const refused = '7d2e0b63-1c4f-4e8f-9a3b-2b3c4d5e6f70';
    cancellations.set(refused, 'refused');
    const error = await failure(adyen.technicalCancel(refused));
    expect(error).toBeInstanceOf(ProcessorUnavailable);
    expect((error as ProcessorUnavailable).reached).toBe(true);
    expect(error.message).toContain('refused');
    const silent = await failure(adyen.technicalCancel('8e3f1c74-2d50-4f90-8b4c-3c4d5e6f7081'));
    expect(silent.message).toContain('not confirmed within 300 ms');
  });

  it('inquiries cannot tell', async () => {
    expect(await processor().inquire(sale.reference)).toBe('unknown');
  });

  it("the notified outcome is what the attempt's AUTHORISATION notification says, unknown before it comes", async () => {
    const adyen = processor();
    expect(await adyen.notifiedOutcome?.(sale.reference)).toBe('unknown');
    authorisations.set(sale.reference, {
      pspReference: 'PSP0000000000042',
      merchantReference: sale.reference,
      eventCode: 'AUTHORISATION',
      success: 'true',
      additionalData: { authCode: '123456', cvcResult: '1 Matches' },
    });
    expect(await adyen.notifiedOutcome?.(sale.reference)).toMatchObject({
      approved: true,
      processorReference: 'PSP0000000000042',
      authorizationCode: '123456',
      cvvResponseCode: 'MA',
    });
    const refused = '9f4a2d85-3e61-4a01-9c5d-4d5e6f708192';
    authorisations.set(refused, {
      pspReference: 'PSP0000000000043',
      merchantReference: refused,
      eventCode: 'AUTHORISATION',
      success: 'false',
      additionalData: { refusalReasonCode: '12' },
    });
    expect(await adyen.notifiedOutcome?.(refused)).toEqual({
      approved: false,
      reason: 'INSUFFICIENT_FUNDS',
      processorReference: 'PSP0000000000043',
    });
  });

  it('a 422 is the request refused, with Adyen’s errorCode', async () => {
    answer = (_request, response) =>
      json(response, 422, {
        status: 422,
        errorCode: '101',
        message: 'Invalid card number 4111111111111111',
        errorType: 'validation',
      });
    const error = await failure(processor().authorize(sale));
    expect(error).toBeInstanceOf(ProcessorRejected);
    expect(error).toMatchObject({ status: 422, errorCode: '101' });
    expect(error.message).toContain('errorCode 101');
  });

  it('a 401 (bad credentials) is refused too', async () => {
    answer = (_request, response) =>
      json(response, 401, {
        status: 401,
        errorCode: '000',
        message: 'HTTP Status Response - Unauthorized',
        errorType: 'security',
      });
    const error = await failure(processor().capture(modification));
    expect(error).toBeInstanceOf(ProcessorRejected);
    expect(error).toMatchObject({ status: 401 });
  });

  it('a 500 may have been processed: unavailable, reached', async () => {
    answer = (_request, response) =>
      json(response, 500, {
        status: 500,
        errorCode: '905',
        message: 'Payment details are not supported',
        errorType: 'configuration',
      });
    const error = await failure(processor().authorize(sale));
    expect(error).toBeInstanceOf(ProcessorUnavailable);
    expect((error as ProcessorUnavailable).reached).toBe(true);
  });

  it('a hang past the deadline: unavailable, reached', async () => {
    answer = () => {}; // never answers: only the deadline can end the call
    const error = await failure(processor(150).authorize(sale));
    expect(error).toBeInstanceOf(ProcessorUnavailable);
    expect((error as ProcessorUnavailable).reached).toBe(true);
    expect(error.message).toContain('within 150 ms');
  });

  it('a connection reset after the request was sent: unavailable, reached', async () => {
    answer = (_request, response) => response.socket?.destroy();
    const error = await failure(processor().authorize(sale));
    expect(error).toBeInstanceOf(ProcessorUnavailable);
    expect((error as ProcessorUnavailable).reached).toBe(true);
  });

  it('a refused connection cannot have arrived: unavailable, not reached', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const { port } = closed.address() as AddressInfo;
    closed.close();
    await once(closed, 'close');
    const adyen = createAdyenProcessor({
      endpoint: `http://127.0.0.1:${port}/v72`,
      apiKey,
      merchantAccount: 'PaywireECOM',
      timeoutMs: 2_000,
      ...confirmations,
    });
    const error = await failure(adyen.authorize(sale));
    expect(error).toBeInstanceOf(ProcessorUnavailable);
    expect((error as ProcessorUnavailable).reached).toBe(false);
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('an unknown host cannot have been reached either', async () => {
    const adyen = createAdyenProcessor({
      endpoint: 'http://adyen.invalid/v72',
      apiKey,
      merchantAccount: 'PaywireECOM',
      timeoutMs: 5_000,
      ...confirmations,
    });
    const error = await failure(adyen.authorize(sale));
    expect((error as ProcessorUnavailable).reached).toBe(false);
  });

  it('a 2xx that is not an answer leaves the outcome unknown', async () => {
    answer = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html>maintenance</html>');
    };
    const error = await failure(processor().authorize(sale));
    expect(error).toBeInstanceOf(ProcessorUnavailable);
    expect((error as ProcessorUnavailable).reached).toBe(true);
  });
});

describe('Adyen endpoints', () => {
  it("are Adyen's documented base URLs", () => {
    expect(adyenEndpoint('test')).toBe('https://checkout-test.adyen.com/v72');
    expect(adyenEndpoint('live', '1797a841fbb37ca7-AdyenDemo')).toBe(
      'https://1797a841fbb37ca7-AdyenDemo-checkout-live.adyenpayments.com/checkout/v72',
    );
    expect(() => adyenEndpoint('live')).toThrow(/prefix/);
  });
});
