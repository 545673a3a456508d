import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CallOptions, client, expectStatus, type Reply, saleBody } from '../support/http.ts';
import { completeVendor } from '../support/marketplace.ts';
import { type Stack, startStack } from '../support/stack.ts';

// ---------------------------------------------------------------------------------------------------------
// Refunds of split sales (docs/marketplace.md, Refunds): vendorAmount, vendorsRefundInfo and the PUT form's
// vendor.{id}.amount, never refunding a vendor more than is left of its share nor the merchant more than is
// left of its part; the reference's marketplace errors, nothing written when one is answered.
// ---------------------------------------------------------------------------------------------------------

const refundXml: CallOptions = { format: 'xml', accept: 'application/xml', shape: { root: 'refund' } };

let stack: Stack;
let api: ReturnType<typeof client>;
let cakes: number; // 30% in its agreement
let teas: number;

beforeAll(async () => {
  stack = await startStack();
  api = client(stack);
  cakes = await newVendor();
  teas = await newVendor({ email: 'teas@example.com' });
});

afterAll(async () => {
  await stack?.close();
});

async function newVendor(overrides: Record<string, unknown> = {}): Promise<number> {
  const reply = await api.post('/vendors', completeVendor(overrides));
  expect(reply.status, reply.text).toBe(201);
  const location = reply.headers.get('location') ?? '';
  return Number(location.slice(location.lastIndexOf('/') + 1));
}

/** A 100.00 USD sale: cakes 30% (30.00), teas 20.00. */
async function splitSale(): Promise<string> {
  const sale = await api.post(
    '/transactions',
    saleBody({
      amount: 100,
      vendorsInfo: {
        vendorInfo: [
          { vendorId: cakes, commissionPercent: 30 },
          { vendorId: teas, commissionAmount: 20 },
        ],
      },
    }),
  );
  return expectStatus(sale, 200).body.transactionId;
}

async function oneVendorSale(): Promise<string> {
  const sale = await api.post('/transactions', saleBody({ amount: 100, vendorInfo: { vendorId: cakes } }));
  return expectStatus(sale, 200).body.transactionId;
}

/** Each vendor's refunded part of the transaction, in minor units, and the transaction's refunds. */
async function state(transactionId: string) {
  const splits = await stack.db.query(
    'select vendor_id, refunded_minor::int as refunded from vendor_split where transaction_id = $1 order by position',
    [transactionId],
  );
  const refunds = await stack.db.query(
    `select r.amount_minor::int as amount, coalesce(json_agg(json_build_array(v.vendor_id, v.amount_minor::int)
       order by v.vendor_id) filter (where v.vendor_id is not null), '[]') as vendors
     from refund r left join vendor_refund v on v.refund_id = r.id where r.transaction_id = $1 group by r.id order by r.id`,
    [transactionId],
  );
  return {
    refunded: Object.fromEntries(splits.rows.map((row) => [row.vendor_id, row.refunded])),
    refunds: refunds.rows,
  };
}

function failure(reply: Reply) {
  const [message] = reply.body.message as Array<Record<string, unknown>>;
  return { status: reply.status, errorName: message?.errorName, code: Number(message?.code) };
}

const refund = (transactionId: string, body?: unknown, options?: CallOptions) =>
  api.post(`/transactions/refund/${transactionId}`, body, options);

describe('vendor amounts on refunds', () => {
  it('POST vendorsRefundInfo: each vendor gives back what is named, the merchant the rest', async () => {
    const id = await splitSale();
    const reply = expectStatus(
      await refund(id, {
        amount: 10,
        vendorsRefundInfo: {
          vendorRefundInfo: [
            { vendorId: cakes, vendorAmount: 5 },
            { vendorId: teas, vendorAmount: '2.5' },
          ],
        },
      }),
      200,
    );
    expect(reply.body.vendorsRefundInfo).toEqual({
      vendorRefundInfo: [
        { vendorId: cakes, vendorAmount: 5 },
        { vendorId: teas, vendorAmount: 2.5 },
      ],
    });
    expect(await state(id)).toEqual({
      refunded: { [cakes]: 500, [teas]: 250 },
      refunds: [
        {
          amount: 1000,
          vendors: [
            [cakes, 500],
            [teas, 250],
          ].sort((a, b) => Number(a[0]) - Number(b[0])),
        },
      ],
    });
  });

  it('no vendor amounts: each vendor gives back the refund’s proportion of its share; the whole balance gives back all', async () => {
    const id = await splitSale();
    const half = expectStatus(await refund(id, { amount: 50 }), 200);
    expect(half.body.vendorsRefundInfo.vendorRefundInfo).toEqual([
      { vendorId: cakes, vendorAmount: 15 },
      { vendorId: teas, vendorAmount: 10 },
    ]);
    const rest = expectStatus(await refund(id, {}), 200);
    expect(rest.body.amount).toBe(50);
    expect((await state(id)).refunded).toEqual({ [cakes]: 3000, [teas]: 2000 });
  });

  it('PUT ?amount=&vendor.{id}.amount= (the SDK form) answers 204 and records the part', async () => {
    const id = await splitSale();
    const reply = await api.put(`/transactions/${id}/refund?amount=10&vendor.${teas}.amount=4`);
    expect(reply.status, reply.text).toBe(204);
    expect((await state(id)).refunded).toEqual({ [cakes]: 0, [teas]: 400 });
  });

  it('vendorAmount names the one vendor of a one-vendor sale; XML answers vendors-refund-info', async () => {
    const id = await oneVendorSale();
    const reply = expectStatus(
      await refund(
        id,
        '<refund xmlns="http://ws.plimus.com"><amount>20</amount><vendor-amount>12.5</vendor-amount></refund>',
        refundXml,
      ),
      200,
    );
    expect(reply.text).toContain(
      `<refund-status>SUCCESS</refund-status><vendors-refund-info><vendor-refund-info><vendor-id>${cakes}</vendor-id>` +
        '<vendor-amount>12.5</vendor-amount></vendor-refund-info></vendors-refund-info></refund>',
    );
    expect((await state(id)).refunded).toEqual({ [cakes]: 1250 });
  });
});

describe('the reference’s marketplace refund errors, nothing written', () => {
  const cases: Array<[string, () => Promise<[string, unknown]>, string, number]> = [
    [
      'a vendor amount on a sale without vendors',
      async () => [
        expectStatus(await api.post('/transactions', saleBody()), 200).body.transactionId,
        { vendorAmount: 1 },
      ],
      'REFUND_VENDOR_AMOUNT_NOT_SUPPORTED',
      14030,
    ],
    [
      'a vendor amount of zero',
      async () => [await oneVendorSale(), { amount: 5, vendorAmount: 0 }],
      'REFUND_NEGATIVE_VENDOR_AMOUNT',
      14031,
    ],
    [
      'a vendor amount that is no number',
      async () => [await oneVendorSale(), { amount: 5, vendorAmount: 'abc' }],
      'REFUND_INVALID_VENDOR_REFUND_AMOUNT',
      14043,
    ],
    [
      'vendorAmount on a sale of two vendors',
      async () => [await splitSale(), { amount: 5, vendorAmount: 1 }],
      'REFUND_VENDOR_ERROR',
      14044,
    ],
    [
      'a vendor not on the sale',
      async () => [
        await oneVendorSale(),
        { amount: 5, vendorsRefundInfo: { vendorRefundInfo: [{ vendorId: teas, vendorAmount: 1 }] } },
      ],
      'REFUND_INVALID_VENDOR',
      14045,
    ],
    [
      'more than the vendor’s share',
      async () => [
        await splitSale(),
        { amount: 40, vendorsRefundInfo: { vendorRefundInfo: [{ vendorId: teas, vendorAmount: 20.01 }] } },
      ],
      'REFUND_MAX_VENDOR_AMOUNT_FAILURE',
      14032,
    ],
    [
      'vendor amounts over the refund',
      async () => [await oneVendorSale(), { amount: 5, vendorAmount: 6 }],
      'REFUND_NEGATIVE_MERCHANT_AMOUNT',
      14047,
    ],
    [
      'more than the merchant’s part',
      async () => [await oneVendorSale(), { amount: 75, vendorAmount: 1 }],
      'REFUND_MAX_MERCHANT_AMOUNT_FAILURE',
      14033,
    ],
  ];

  it.each(cases)('%s', async (_name, setUp, errorName, code) => {
    const [id, body] = await setUp();
    const before = await state(id);
    expect(failure(await refund(id, body))).toEqual({ status: 400, errorName, code });
    expect(await state(id)).toEqual(before);
  });

  it('a vendor refunded in full: VENDOR_ALREADY_FULLY_REFUNDED (14046); in the PUT form too', async () => {
    const id = await oneVendorSale();
    expectStatus(await refund(id, { amount: 30, vendorAmount: 30 }), 200);
    expect(failure(await refund(id, { amount: 1, vendorAmount: 1 }))).toEqual({
      status: 400,
      errorName: 'VENDOR_ALREADY_FULLY_REFUNDED',
      code: 14046,
    });
    expect(
      failure(await api.put(`/transactions/${id}/refund?amount=1&vendor.${cakes}.amount=1`)),
    ).toMatchObject({
      code: 14046,
    });
    expect((await state(id)).refunded).toEqual({ [cakes]: 3000 });
  });

  it('in XML the error is <messages>', async () => {
    const id = await splitSale();
    const reply = await refund(
      id,
      '<refund xmlns="http://ws.plimus.com"><amount>5</amount><vendor-amount>1</vendor-amount></refund>',
      refundXml,
    );
    expect(reply.status).toBe(400);
    expect(reply.text).toContain('<code>14044</code>');
  });
});
