import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  as,
  type CallOptions,
  client,
  expectStatus,
  failure,
  saleBody,
  xmlDocument,
} from '../support/http.ts';
import { badSplitCases, createVendor } from '../support/marketplace.ts';
import { type Stack, startStack } from '../support/stack.ts';

// ---------------------------------------------------------------------------------------------------------
// Split payments (docs/marketplace.md, Split payments): vendorInfo / vendorsInfo on card sales, validated as
// the reference validates them before anything is charged, recorded with the sale and shown on retrieve,
// JSON and XML, over real HTTP against real PostgreSQL.
// ---------------------------------------------------------------------------------------------------------

const cardTransactionXml: CallOptions = {
  format: 'xml',
  accept: 'application/xml',
  shape: { root: 'card-transaction', repeated: ['metaData'] },
};

let stack: Stack;
let api: ReturnType<typeof client>;
let cakes: number; // 30% in its agreement
let teas: number; // no commission in its agreement

beforeAll(async () => {
  stack = await startStack();
  api = client(stack);
  cakes = await newVendor();
  teas = await newVendor({ vendorAgreement: undefined, email: 'teas@example.com' });
});

afterAll(async () => {
  await stack?.close();
});

const newVendor = (overrides: Record<string, unknown> = {}, merchant = stack.merchant) =>
  createVendor(api, merchant, overrides);

async function splitRows(transactionId: string) {
  const { rows } = await stack.db.query(
    `select vendor_id, commission_hundredths, commission_amount_minor::int as amount, share_minor::int as share
     from vendor_split where transaction_id = $1 order by position`,
    [transactionId],
  );
  return rows;
}

async function counts() {
  const { rows } = await stack.db.query(
    `select (select count(*) from card_transaction)::int as sales, (select count(*) from vendor_split)::int as splits`,
  );
  return rows[0];
}

describe('a sale split between vendors', () => {
  it('JSON vendorsInfo: a percent and an amount, recorded with the sale and shown on retrieve', async () => {
    const sale = expectStatus(
      await api.post(
        '/transactions',
        saleBody({
          amount: 100,
          vendorsInfo: {
            vendorInfo: [
              { vendorId: cakes, commissionPercent: 12.5 },
              { vendorId: teas, commissionAmount: '20.10' },
            ],
          },
        }),
      ),
      200,
    );
    const vendorsInfo = {
      vendorInfo: [
        { vendorId: cakes, commissionPercent: 12.5 },
        { vendorId: teas, commissionAmount: 20.1 },
      ],
    };
    expect(sale.body.vendorsInfo).toEqual(vendorsInfo);
    expect(await splitRows(sale.body.transactionId)).toEqual([
      { vendor_id: cakes, commission_hundredths: 1250, amount: null, share: 1250 },
      { vendor_id: teas, commission_hundredths: null, amount: 2010, share: 2010 },
    ]);
    const read = expectStatus(await api.get(`/transactions/${sale.body.transactionId}`), 200);
    expect(read.body).toEqual(sale.body);
  });

  it("JSON vendorInfo without a commission takes the vendor agreement's percent, rounded down", async () => {
    const sale = expectStatus(
      await api.post('/transactions', saleBody({ amount: '10.01', vendorInfo: { vendorId: cakes } })),
      200,
    );
    expect(sale.body.vendorInfo).toEqual({ vendorId: cakes, commissionPercent: 30 });
    expect(sale.body).not.toHaveProperty('vendorsInfo');
    // 30% of 10.01 is 3.003: the vendor's share is 3.00
    expect((await splitRows(sale.body.transactionId))[0]?.share).toBe(300);
  });

  it('XML vendor-info: written right after card-transaction-type (the XSD order), and on retrieve', async () => {
    const request = xmlDocument('card-transaction', {
      ...saleBody({ amount: '40.00' }),
      vendorInfo: { vendorId: cakes, commissionPercent: '50' },
    });
    const sale = expectStatus(await api.post('/transactions', request, cardTransactionXml), 200);
    expect(sale.text).toContain(
      '<card-transaction-type>AUTH_CAPTURE</card-transaction-type>' +
        `<vendor-info><vendor-id>${cakes}</vendor-id><commission-percent>50</commission-percent></vendor-info>` +
        '<transaction-id>',
    );
    const id = sale.body.transactionId;
    expect((await splitRows(id))[0]?.share).toBe(2000);
    const read = expectStatus(await api.get(`/transactions/${id}`, cardTransactionXml), 200);
    expect(read.text).toBe(sale.text);
  });

  it('XML vendors-info with two vendor-info elements', async () => {
    const request = xmlDocument('card-transaction', saleBody({ amount: '40.00' })).replace(
      '</card-transaction>',
      `<vendors-info><vendor-info><vendor-id>${cakes}</vendor-id><commission-amount>1.5</commission-amount></vendor-info>` +
        `<vendor-info><vendor-id>${teas}</vendor-id><commission-percent>10</commission-percent></vendor-info></vendors-info></card-transaction>`,
    );
    const sale = expectStatus(await api.post('/transactions', request, cardTransactionXml), 200);
    expect(sale.text).toContain(
      `<vendors-info><vendor-info><vendor-id>${cakes}</vendor-id><commission-amount>1.5</commission-amount></vendor-info>` +
        `<vendor-info><vendor-id>${teas}</vendor-id><commission-percent>10</commission-percent></vendor-info></vendors-info>`,
    );
    expect((await splitRows(sale.body.transactionId)).map((row) => row.share)).toEqual([150, 400]);
  });

  it('a declined sale records no split', async () => {
    const before = await counts();
    const declined = await api.post(
      '/transactions',
      saleBody({
        vendorInfo: { vendorId: cakes },
        creditCard: {
          cardNumber: '4917484589897107',
          securityCode: '837',
          expirationMonth: '02',
          expirationYear: '2031',
        },
      }),
    );
    expect(failure(declined).code).toBe(14002);
    expect(await counts()).toEqual(before);
  });
});

describe('bad splits: the reference errors, before anything is charged', () => {
  let inactive: number;
  let foreign: number;
  beforeAll(async () => {
    inactive = await newVendor({ vendorAgreement: { commissionPercent: 5, accountStatus: 'INACTIVE' } });
    foreign = await newVendor({}, await stack.newMerchant());
  });

  // The sale is 25.50.
  it.each(badSplitCases(25.51))('%s: 400, nothing charged or written', async (_name, split, expected) => {
    const before = await counts();
    const reply = await api.post('/transactions', saleBody(split({ cakes, teas, inactive, foreign })));
    expect(failure(reply)).toEqual({ status: 400, ...expected });
    expect(await counts()).toEqual(before);
  });

  it('in XML too, as <messages>', async () => {
    const request = xmlDocument('card-transaction', {
      ...saleBody({ amount: '40.00' }),
      vendorInfo: { vendorId: inactive },
    });
    const reply = await api.post('/transactions', request, cardTransactionXml);
    expect(reply.status).toBe(400);
    expect(reply.text).toContain('<error-name>INACTIVE_VENDOR</error-name><code>20052</code>');
  });

  it("a vendor's split is invisible to another merchant's retrieve (404)", async () => {
    const sale = expectStatus(
      await api.post('/transactions', saleBody({ vendorInfo: { vendorId: cakes } })),
      200,
    );
    const other = await stack.newMerchant();
    expect((await api.get(`/transactions/${sale.body.transactionId}`, as(other))).status).toBe(404);
  });
});
