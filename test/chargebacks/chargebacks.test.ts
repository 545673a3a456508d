// Issue 23, chargebacks, over real HTTP: sandbox disputes (JSON and XML), their lifecycle and its refusals,
// the Chargeback and ChargebackStatusChanged IPNs at a merchant's endpoint, the representment upload (type by
// content, size, nothing stored on a refusal), Adyen's dispute stages through a fake Adyen, and the balance
// reports reading the disputes while the sale's amounts stay as they were.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adyenTestCard, fakeAdyenAccount, operatorOf, startLiveStack } from '../support/adyen.ts';
import { as, client, expectStatus, type Reply, saleBody, xmlDocument } from '../support/http.ts';
import { hookConfig, type IpnReceiver, startIpnReceiver } from '../support/ipn-receiver.ts';
import { customPeriodAround, fetchReport } from '../support/reports.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

let stack: Stack;
let api: ReturnType<typeof client>;
let receiver: IpnReceiver;
let hook: string;

const xmlShape = { root: 'chargeback', wrapped: { evidence: 'evidence-file' } };

beforeAll(async () => {
  stack = await startStack();
  api = client(stack);
  receiver = await startIpnReceiver();
  hook = receiver.newHook();
  const config = hookConfig(hook, ['sendChargeback', 'sendChargebackStatusChanged']);
  expectStatus(await api.post('/notification-config', config), 200);
});

afterAll(async () => {
  await receiver?.close();
  await stack?.close();
});

async function sale(merchant: TestMerchant = stack.merchant, overrides: Record<string, unknown> = {}) {
  const reply = expectStatus(await api.post('/transactions', saleBody(overrides), as(merchant)), 200);
  return String(reply.body.transactionId);
}

async function dispute(transactionId: string, extra: Record<string, unknown> = {}) {
  return expectStatus(await api.post('/sandbox/chargebacks', { transactionId, ...extra }), 200).body;
}

/** The IPNs of one event type about one transaction that reached the receiver. */
const ipnsOf = (type: string, transactionId: string) =>
  receiver
    .at(hook)
    .filter(
      (ipn) =>
        ipn.params.get('transactionType') === type && ipn.params.get('referenceNumber') === transactionId,
    )
    .map((ipn) => Object.fromEntries(ipn.params));

const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(1000)]);
const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(500)]);

/** The original's upload: multipart/form-data, the file in `representment_file`, the chargeback in the query. */
async function upload(
  chargebackId: number | string,
  file: Buffer,
  options: {
    name?: string;
    type?: string;
    field?: string;
    accept?: string;
    merchant?: TestMerchant;
    headers?: Record<string, string>;
  } = {},
) {
  const form = new FormData();
  form.append(
    options.field ?? 'representment_file',
    new Blob([file], { type: options.type ?? 'application/pdf' }),
    options.name ?? 'evidence.pdf',
  );
  const response = await fetch(
    `${stack.baseUrl}/chargeback/upload_representment?chargeback_id=${chargebackId}`,
    {
      method: 'POST',
      headers: {
        authorization: (options.merchant ?? stack.merchant).authorization,
        ...(options.accept ? { accept: options.accept } : {}),
        ...options.headers,
      },
      body: form,
    },
  );
  const text = await response.text();
  const reply: Reply = {
    status: response.status,
    headers: response.headers,
    text,
    body: text.startsWith('{') ? JSON.parse(text) : undefined,
  };
  return reply;
}

async function evidenceRows(chargebackId: number) {
  const { rows } = await stack.db.query<{ media_type: string; size_bytes: number; content: Buffer }>(
    'select media_type, size_bytes, content from chargeback_evidence where chargeback_id = $1 order by id',
    [chargebackId],
  );
  return rows;
}

describe('sandbox chargebacks', () => {
  it('opens a dispute of a captured sale with the Chargeback IPN, leaving the sale as it was', async () => {
    const transactionId = await sale(stack.merchant, {
      amount: 40,
      merchantTransactionId: `cb-${Date.now()}`,
    });
    const before = expectStatus(await api.get(`/transactions/${transactionId}`), 200).body;
    const chargeback = await dispute(transactionId, { amount: 15.5, reasonCode: '10.4', reason: 'Fraud' });
    expect(chargeback).toMatchObject({
      transactionId,
      amount: 15.5,
      currency: 'USD',
      status: 'NEW',
      reasonCode: '10.4',
      reason: 'Fraud',
      source: 'SANDBOX',
      evidence: [],
    });
    expect(expectStatus(await api.get(`/transactions/${transactionId}`), 200).body).toEqual(before);
    const [ipn] = await waitFor('the Chargeback IPN', () => {
      const ipns = ipnsOf('CHARGEBACK', transactionId);
      return ipns.length > 0 && ipns;
    });
    expect(ipn).toMatchObject({
      reversalRefNum: String(chargeback.chargebackId),
      reversalReason: 'Fraud',
      chargebackAmount: '15.50',
      chargebackCurrency: 'USD',
      chargebackStatus: 'NEW',
      chargebackReasonCode: '10.4',
      invoiceAmount: '15.50',
      testMode: 'Y',
    });
    expect(expectStatus(await api.get(`/chargebacks/${chargeback.chargebackId}`), 200).body).toEqual(
      chargeback,
    );
  });

  it('speaks XML: create, move and retrieve', async () => {
    const transactionId = await sale();
    const created = expectStatus(
      await api.post('/sandbox/chargebacks', xmlDocument('chargeback', { transactionId }), {
        format: 'xml',
        shape: xmlShape,
      }),
      200,
    );
    expect(created.text).toContain('<chargeback xmlns="http://ws.plimus.com">');
    expect(created.text).toContain('<amount>25.50</amount>');
    expect(created.body).toMatchObject({ transactionId, status: 'NEW', currency: 'USD' });
    const moved = expectStatus(
      await api.put(
        `/sandbox/chargebacks/${created.body.chargebackId}`,
        xmlDocument('chargeback', { status: 'COMPLETED_LOST' }),
        { format: 'xml', shape: xmlShape },
      ),
      200,
    );
    expect(moved.body.status).toBe('COMPLETED_LOST');
    const listed = expectStatus(
      await api.get(`/chargebacks?transactionId=${transactionId}`, {
        accept: 'application/xml',
        shape: {
          root: 'chargebacks',
          repeated: ['chargebacks'],
          elementNames: { chargebacks: 'chargeback' },
          wrapped: { evidence: 'evidence-file' },
        },
      }),
      200,
    );
    expect(listed.body.chargebacks).toHaveLength(1);
    expect(listed.body.chargebacks[0]).toMatchObject({ status: 'COMPLETED_LOST', transactionId });
    const one = expectStatus(
      await api.get(`/chargebacks/${created.body.chargebackId}`, {
        accept: 'application/xml',
        shape: xmlShape,
      }),
      200,
    );
    expect(one.body).toEqual(listed.body.chargebacks[0]);

    // refusals answer in XML too, naming the property
    const refused = expectStatus(
      await api.post('/sandbox/chargebacks', xmlDocument('chargeback', { transactionId: 'abc' }), {
        format: 'xml',
      }),
      400,
    );
    expect(refused.text).toContain('<messages xmlns="http://ws.plimus.com">');
    expect(refused.body.message[0]).toMatchObject({
      errorName: 'VALIDATION_GENERAL_FAILURE',
      invalidProperty: { name: 'transactionId', messageValue: 'abc' },
    });
    const decided = expectStatus(
      await api.put(
        `/sandbox/chargebacks/${created.body.chargebackId}`,
        xmlDocument('chargeback', { status: 'PENDING_MERCHANT_RESPONSE' }),
        { format: 'xml' },
      ),
      400,
    );
    expect(decided.body.message[0]).toMatchObject({ errorName: 'INVALID_STATUS', code: '20048' });
  });

  it('walks the lifecycle with a ChargebackStatusChanged IPN per move, refusing moves it does not allow', async () => {
    const transactionId = await sale();
    const { chargebackId } = await dispute(transactionId);
    const move = (status: string) => api.put(`/sandbox/chargebacks/${chargebackId}`, { status });
    expect(expectStatus(await move('PENDING_MERCHANT_RESPONSE'), 200).body.status).toBe(
      'PENDING_MERCHANT_RESPONSE',
    );
    expect(expectStatus(await upload(chargebackId, pdf), 200).body.status).toBe('MERCHANT_RESPONDED');
    expect(expectStatus(await move('COMPLETED_WON'), 200).body.status).toBe('COMPLETED_WON');

    // no way back to an open dispute once decided, and nothing but the issuer's moves from the sandbox
    const refused = expectStatus(await move('PENDING_MERCHANT_RESPONSE'), 400).body.message[0];
    expect(refused).toMatchObject({ errorName: 'INVALID_STATUS', invalidProperty: { name: 'status' } });
    expect(expectStatus(await move('MERCHANT_RESPONDED'), 400).body.message[0].invalidProperty.name).toBe(
      'status',
    );
    expect(expectStatus(await move('COMPLETED_WON'), 400).body.message[0].errorName).toBe('INVALID_STATUS');
    expect(expectStatus(await upload(chargebackId, pdf), 400).body.message[0].errorName).toBe(
      'INVALID_STATUS',
    );

    const changes = await waitFor('three status changes', () => {
      const ipns = ipnsOf('CHARGEBACK_STATUS_CHANGED', transactionId);
      return ipns.length === 3 && ipns;
    });
    // deliveries are independent of each other: compared as a set
    expect(changes.map((ipn) => `${ipn.previousChargebackStatus} -> ${ipn.chargebackStatus}`).sort()).toEqual(
      [
        'MERCHANT_RESPONDED -> COMPLETED_WON',
        'NEW -> PENDING_MERCHANT_RESPONSE',
        'PENDING_MERCHANT_RESPONSE -> MERCHANT_RESPONDED',
      ],
    );
    for (const change of changes) {
      expect(change).toMatchObject({ reversalRefNum: String(chargebackId), chargebackAmount: '25.50' });
    }
  });

  it('refuses what it cannot dispute, storing nothing', async () => {
    const count = async () =>
      Number(
        (await stack.db.query('select count(*) from chargeback where merchant_id = $1', [stack.merchant.id]))
          .rows[0].count,
      );
    const before = await count();
    const other = await stack.newMerchant();
    const othersSale = await sale(other);
    expect(
      expectStatus(await api.post('/sandbox/chargebacks', { transactionId: othersSale }), 404).body.message[0]
        .errorName,
    ).toBe('TRANSACTION_NOT_FOUND');
    const auth = expectStatus(
      await api.post('/transactions', saleBody({ cardTransactionType: 'AUTH_ONLY' })),
      200,
    ).body;
    expect(
      expectStatus(await api.post('/sandbox/chargebacks', { transactionId: auth.transactionId }), 400).body
        .message[0].errorName,
    ).toBe('INVALID_STATUS');
    const transactionId = await sale();
    const tooMuch = expectStatus(
      await api.post('/sandbox/chargebacks', { transactionId, amount: 25.51 }),
      400,
    );
    expect(tooMuch.body.message[0].invalidProperty.name).toBe('amount');
    const missing = expectStatus(await api.post('/sandbox/chargebacks', { amount: 'lots' }), 400).body
      .message;
    expect(missing.map((m: { invalidProperty: { name: string } }) => m.invalidProperty.name).sort()).toEqual([
      'amount',
      'transactionId',
    ]);
    expect(await count()).toBe(before);

    await dispute(transactionId);
    expect(
      expectStatus(await api.post('/sandbox/chargebacks', { transactionId }), 400).body.message[0].errorName,
    ).toBe('INVALID_STATUS');
    expect(
      expectStatus(await api.put('/sandbox/chargebacks/99999999', { status: 'COMPLETED_WON' }), 404).body
        .message[0].errorName,
    ).toBe('CHARGEBACK_NOT_FOUND');
    const bad = expectStatus(await api.put('/sandbox/chargebacks/1', { status: 'WON' }), 400).body.message[0];
    expect(bad.invalidProperty).toEqual({ name: 'status', messageValue: 'WON' });
  });

  it("never shows another merchant's chargeback", async () => {
    const { chargebackId } = await dispute(await sale());
    const other = await stack.newMerchant();
    expect(
      expectStatus(await api.get(`/chargebacks/${chargebackId}`, as(other)), 404).body.message[0].errorName,
    ).toBe('CHARGEBACK_NOT_FOUND');
    expect(
      expectStatus(
        await api.put(`/sandbox/chargebacks/${chargebackId}`, { status: 'COMPLETED_WON' }, as(other)),
        404,
      ).status,
    ).toBe(404);
    expect(expectStatus(await upload(chargebackId, pdf, { merchant: other }), 404).status).toBe(404);
    expect(expectStatus(await api.get('/chargebacks', as(other)), 200).body).toEqual({ chargebacks: [] });
  });
});

describe('the dispute test card', () => {
  const disputeCard = {
    cardNumber: '4000000000000259',
    securityCode: '123',
    expirationMonth: '12',
    expirationYear: '2031',
  };

  it('has its sale disputed at once, whole, with the Chargeback IPN', async () => {
    const transactionId = await sale(stack.merchant, { amount: 12.34, creditCard: disputeCard });
    const { chargebacks } = expectStatus(
      await api.get(`/chargebacks?transactionId=${transactionId}`),
      200,
    ).body;
    expect(chargebacks).toEqual([
      expect.objectContaining({
        transactionId,
        amount: 12.34,
        status: 'NEW',
        reasonCode: '10.4',
        source: 'SANDBOX',
      }),
    ]);
    await waitFor('the Chargeback IPN', () => ipnsOf('CHARGEBACK', transactionId).length === 1);
    expect(expectStatus(await api.get(`/transactions/${transactionId}`), 200).body.amount).toBe(12.34);
  });

  it('leaves an authorization, and any other card, undisputed', async () => {
    const auth = expectStatus(
      await api.post(
        '/transactions',
        saleBody({ cardTransactionType: 'AUTH_ONLY', creditCard: disputeCard }),
      ),
      200,
    ).body;
    const other = await sale();
    for (const transactionId of [String(auth.transactionId), other]) {
      expect(expectStatus(await api.get(`/chargebacks?transactionId=${transactionId}`), 200).body).toEqual({
        chargebacks: [],
      });
    }
  });
});

describe('representment upload', () => {
  it('keeps a file told by its content, not its name, and serves none of it back', async () => {
    const { chargebackId } = await dispute(await sale());
    const answer = expectStatus(
      await upload(chargebackId, png, { name: 'receipt.pdf', type: 'application/pdf' }),
      200,
    ).body;
    expect(answer.status).toBe('MERCHANT_RESPONDED');
    expect(answer.evidence).toEqual([expect.objectContaining({ mediaType: 'image/png', size: png.length })]);
    // the sandbox takes several files per case; an Idempotency-Key cannot cover a file, so it is ignored
    const keyed = { headers: { 'idempotency-key': `evidence-${chargebackId}` } };
    expect(expectStatus(await upload(chargebackId, pdf, keyed), 200).body.evidence).toHaveLength(2);
    const rows = await evidenceRows(chargebackId);
    expect(
      rows.map((row) => [row.media_type, row.content.equals(row.media_type === 'image/png' ? png : pdf)]),
    ).toEqual([
      ['image/png', true],
      ['application/pdf', true],
    ]);
    // the same key again, another file: a third file, not the first answer replayed
    const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(64)]);
    const xml = await upload(chargebackId, jpeg, { ...keyed, accept: 'application/xml' });
    expect(xml.status).toBe(200);
    expect(xml.text).toContain('<media-type>image/jpeg</media-type>');
    expect(xml.text.match(/<evidence-file>/g)).toHaveLength(3);
    const tiff = Buffer.concat([Buffer.from([0x4d, 0x4d, 0x00, 0x2a]), randomBytes(64)]);
    expect(
      expectStatus(await upload(chargebackId, tiff, { name: 'scan.png' }), 200).body.evidence[3],
    ).toMatchObject({
      mediaType: 'image/tiff',
    });
    const retrieved = expectStatus(await api.get(`/chargebacks/${chargebackId}`), 200);
    expect(retrieved.text).not.toContain(pdf.subarray(0, 200).toString('base64').slice(0, 40));
  });

  it('refuses the wrong type, an empty or oversized file, a missing part and a bad id, storing nothing', async () => {
    const { chargebackId } = await dispute(await sale());
    const refusal = async (
      reply: Promise<{ status: number; body: { message: { errorName: string }[] } }>,
      status: number,
      errorName: string,
    ) => {
      const answer = await reply;
      expect(answer.status).toBe(status);
      expect(answer.body.message[0]?.errorName).toBe(errorName);
    };
    const gif = Buffer.concat([Buffer.from('GIF89a'), randomBytes(100)]);
    await refusal(
      upload(chargebackId, gif, { name: 'fine.pdf', type: 'application/pdf' }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    await refusal(upload(chargebackId, Buffer.alloc(0)), 415, 'UNSUPPORTED_MEDIA_TYPE');
    const big = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(200 * 1024)]);
    await refusal(upload(chargebackId, big), 413, 'REQUEST_ENTITY_TOO_LARGE');
    await refusal(upload(chargebackId, pdf, { field: 'file' }), 400, 'VALIDATION_GENERAL_FAILURE');
    await refusal(upload('abc', pdf), 400, 'VALIDATION_GENERAL_FAILURE');
    await refusal(upload(99999999, pdf), 404, 'CHARGEBACK_NOT_FOUND');
    const json = expectStatus(
      await api.post(`/chargeback/upload_representment?chargeback_id=${chargebackId}`, {
        representment_file: 'x',
      }),
      415,
    );
    expect(json.body.message[0].errorName).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(await evidenceRows(chargebackId)).toEqual([]);
    expect(expectStatus(await api.get(`/chargebacks/${chargebackId}`), 200).body.status).toBe('NEW');
  });
});

describe('the balance reports', () => {
  it('hold an open dispute, give back a won one, and keep the sale whole', async () => {
    const merchant = await stack.newMerchant();
    const transactionId = await sale(merchant, { amount: 100 });
    const balance = async () =>
      (await fetchReport(api, merchant, 'AccountBalance', {})).rows.find(
        (row) => row['Payout Currency'] === 'USD',
      );
    const created = expectStatus(
      await api.post('/sandbox/chargebacks', { transactionId, amount: 30 }, as(merchant)),
      200,
    ).body;
    expect(await balance()).toMatchObject({
      'Gross Amount': '100.00',
      Chargebacks: '30.00',
      'Net Amount': '70.00',
    });
    const report = await fetchReport(api, merchant, 'Chargebacks', await customPeriodAround(api, merchant));
    expect(report.rows).toEqual([
      expect.objectContaining({
        'Chargeback/Refund Invoice ID': String(created.chargebackId),
        'Chargeback Status': 'NEW',
        'Original Invoice ID': transactionId,
      }),
    ]);
    expectStatus(
      await api.put(
        `/sandbox/chargebacks/${created.chargebackId}`,
        { status: 'COMPLETED_WON' },
        as(merchant),
      ),
      200,
    );
    expect(await balance()).toMatchObject({ Chargebacks: '0.00', 'Net Amount': '100.00' });
    const { rows } = await stack.db.query(
      'select captured_minor, refunded_minor, status from card_transaction where id = $1',
      [transactionId],
    );
    expect(rows[0]).toEqual({ captured_minor: '10000', refunded_minor: '0', status: 'CAPTURED' });
  });
});

describe("Adyen's dispute stages", () => {
  it('open and move the chargeback of the payment they name', async () => {
    const merchant = await stack.newMerchant();
    const account = await fakeAdyenAccount(stack, await operatorOf(stack), merchant, {
      name: 'disputes',
      default: true,
    });
    const merchantHook = receiver.newHook();
    const config = hookConfig(merchantHook, ['sendChargeback', 'sendChargebackStatusChanged']);
    expectStatus(await api.post('/notification-config', config, as(merchant)), 200);
    const transactionId = await sale(merchant, {
      creditCard: {
        cardNumber: '4111111111111111',
        securityCode: '737',
        expirationMonth: '03',
        expirationYear: '2030',
      },
    });
    const { rows } = await stack.db.query<{ processor_reference: string }>(
      'select processor_reference from card_transaction where id = $1',
      [transactionId],
    );
    const payment = rows[0]?.processor_reference ?? '';
    const disputeReference = randomBytes(8).toString('hex').toUpperCase();
    const stage = async (eventCode: string) => {
      const delivery = await account.fake.sendNotification({
        pspReference: disputeReference,
        originalReference: payment,
        merchantReference: 'the payment',
        eventCode,
        success: 'true',
        amount: { currency: 'USD', value: 2550 },
        reason: 'Fraud - card absent environment',
        additionalData: { chargebackReasonCode: '10.4' },
      });
      expect(delivery.accepted).toBe(true);
      return expectStatus(await api.get(`/chargebacks?transactionId=${transactionId}`, as(merchant)), 200)
        .body.chargebacks;
    };

    const [opened] = await stage('NOTIFICATION_OF_CHARGEBACK');
    expect(opened).toMatchObject({ status: 'NEW', source: 'PROCESSOR', amount: 25.5, reasonCode: '10.4' });
    expect(await stage('CHARGEBACK')).toEqual([opened]); // the same dispute, opened once
    expect((await stage('REQUEST_FOR_INFORMATION'))[0].status).toBe('PENDING_MERCHANT_RESPONSE');
    expect(expectStatus(await upload(opened.chargebackId, pdf, { merchant }), 200).body.status).toBe(
      'MERCHANT_RESPONDED',
    );
    expect((await stage('CHARGEBACK_REVERSED'))[0].status).toBe('COMPLETED_WON');
    expect((await stage('SECOND_CHARGEBACK'))[0].status).toBe('COMPLETED_LOST');
    expect((await stage('PREARBITRATION_LOST'))[0].status).toBe('COMPLETED_WON'); // the issuer lost
    expect((await stage('PREARBITRATION_WON'))[0].status).toBe('COMPLETED_LOST'); // the issuer won
    account.expectNoViolations();

    // deliveries are independent of each other: compared as a set
    const received = () =>
      receiver
        .at(merchantHook)
        .map(
          (ipn) =>
            `${ipn.params.get('transactionType')} ${ipn.params.get('previousChargebackStatus') ?? ''} -> ${ipn.params.get('chargebackStatus')}`,
        )
        .sort();
    await waitFor('seven dispute IPNs', () => received().length === 7);
    expect(received()).toEqual([
      'CHARGEBACK  -> NEW',
      'CHARGEBACK_STATUS_CHANGED COMPLETED_LOST -> COMPLETED_WON',
      'CHARGEBACK_STATUS_CHANGED COMPLETED_WON -> COMPLETED_LOST',
      'CHARGEBACK_STATUS_CHANGED COMPLETED_WON -> COMPLETED_LOST',
      'CHARGEBACK_STATUS_CHANGED MERCHANT_RESPONDED -> COMPLETED_WON',
      'CHARGEBACK_STATUS_CHANGED NEW -> PENDING_MERCHANT_RESPONSE',
      'CHARGEBACK_STATUS_CHANGED PENDING_MERCHANT_RESPONSE -> MERCHANT_RESPONDED',
    ]);
  });
});

describe('live mode', () => {
  let live: Awaited<ReturnType<typeof startLiveStack>>;
  beforeAll(async () => {
    live = await startLiveStack();
  });
  afterAll(async () => {
    await live?.close();
  });

  it('has no sandbox chargebacks', async () => {
    const reply = await client(live).post('/sandbox/chargebacks', { transactionId: '1' });
    expect(reply.status).toBe(404);
    expect(reply.body.message[0].errorName).toBe('RESOURCE_NOT_FOUND');
  });

  it("takes one evidence file per case, up to the original's 9 MB", async () => {
    const liveApi = client(live);
    const sold = expectStatus(
      await liveApi.post('/transactions', saleBody({ creditCard: adyenTestCard })),
      200,
    );
    const { rows } = await live.db.query<{ processor_reference: string }>(
      'select processor_reference from card_transaction where id = $1',
      [sold.body.transactionId],
    );
    const delivery = await live.adyen.sendNotification({
      pspReference: randomBytes(8).toString('hex').toUpperCase(),
      originalReference: rows[0]?.processor_reference ?? '',
      merchantReference: 'the payment',
      eventCode: 'CHARGEBACK',
      success: 'true',
      amount: { currency: 'USD', value: 2550 },
    });
    expect(delivery.accepted).toBe(true);
    const [chargeback] = expectStatus(await liveApi.get('/chargebacks'), 200).body.chargebacks;
    const send = (file: Buffer) =>
      fetch(`${live.baseUrl}/chargeback/upload_representment?chargeback_id=${chargeback.chargebackId}`, {
        method: 'POST',
        headers: { authorization: live.merchant.authorization },
        body: (() => {
          const form = new FormData();
          form.append('representment_file', new Blob([file]), 'evidence.pdf');
          return form;
        })(),
      });
    const pdfOf = (size: number) => Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(size - 9, 0x20)]);
    expect((await send(pdfOf(9 * 1024 * 1024 + 1))).status).toBe(413);
    const accepted = await send(pdfOf(9 * 1024 * 1024));
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toMatchObject({
      status: 'MERCHANT_RESPONDED',
      evidence: [{ size: 9 * 1024 * 1024 }],
    });
    const second = await send(pdf);
    expect(second.status).toBe(400);
    const refusal = (await second.json()) as { message: { errorName: string }[] };
    expect(refusal.message[0]?.errorName).toBe('INVALID_STATUS');
  });
});
