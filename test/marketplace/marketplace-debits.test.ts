import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sepaDebitBody } from '../support/debits.ts';
import { as, type CallOptions, client, expectStatus, failure, xmlDocument } from '../support/http.ts';
import { badSplitCases, createVendor } from '../support/marketplace.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

// ---------------------------------------------------------------------------------------------------------
// Split SEPA debits (docs/marketplace.md, Split payments and Refunds): vendorInfo / vendorsInfo on
// POST /alt-transactions, validated as a card sale's split before anything is written, recorded with the
// debit and shown on retrieve (JSON and XML); a collected split debit refunded with vendor amounts as a card
// sale is; a debit the bank returns gives every vendor's share back. Real HTTP, real PostgreSQL, settlement
// by core's own workers on the merchant's sandbox clock.
// ---------------------------------------------------------------------------------------------------------

const RETURNED = 'DE35370400440532013002';
const altXml: CallOptions = { format: 'xml', accept: 'application/xml', shape: { root: 'alt-transaction' } };

let stack: Stack;
let api: ReturnType<typeof client>;
let merchant: TestMerchant;
let cakes: number; // 30% in its agreement
let teas: number; // no commission in its agreement

beforeAll(async () => {
  stack = await startStack();
  api = client(stack);
  merchant = await stack.newMerchant();
  cakes = await newVendor();
  teas = await newVendor({ vendorAgreement: undefined, email: 'teas@example.com' });
});

afterAll(async () => {
  await stack?.close();
});

const newVendor = (overrides: Record<string, unknown> = {}, owner = merchant) =>
  createVendor(api, owner, overrides);

const debit = async (overrides: Record<string, unknown>) =>
  expectStatus(await api.post('/alt-transactions', sepaDebitBody(overrides), as(merchant)), 200).body;

async function splitRows(transactionId: string) {
  const { rows } = await stack.db.query(
    `select vendor_id, share_minor::int as share, refunded_minor::int as refunded
     from vendor_split where transaction_id = $1 order by position`,
    [transactionId],
  );
  return rows;
}

async function vendorRefunds(transactionId: string) {
  const { rows } = await stack.db.query(
    `select vr.vendor_id, vr.amount_minor::int as amount, r.returned
       from vendor_refund vr join sepa_refund r on r.id = vr.refund_id
      where r.debit_id = $1 order by r.id, vr.vendor_id`,
    [transactionId],
  );
  return rows;
}

async function counts() {
  const { rows } = await stack.db.query(
    `select (select count(*) from sepa_debit where merchant_id = $1)::int as debits,
            (select count(*) from vendor_split where merchant_id = $1)::int as splits,
            (select count(*) from sepa_refund where merchant_id = $1)::int as refunds,
            (select count(*) from vendor_refund)::int as vendor_refunds`,
    [merchant.id],
  );
  return rows[0];
}

/** Moves the merchant's clock past the sandbox bank's answer and waits for the debit to reach `status`. */
async function settled(transactionId: string, status: string) {
  expectStatus(await api.put('/sandbox/clock', { advanceBy: 'PT3M' }, as(merchant)), 200);
  return waitFor(`debit ${transactionId} ${status}`, async () => {
    const read = expectStatus(await api.get(`/alt-transactions/${transactionId}`, as(merchant)), 200);
    return read.body.processingInfo.processingStatus === status && read.body;
  });
}

describe('a SEPA debit split between vendors', () => {
  it('JSON vendorsInfo: recorded with the debit, shown on its answer and on retrieve', async () => {
    const vendorsInfo = {
      vendorInfo: [
        { vendorId: cakes, commissionPercent: 12.5 },
        { vendorId: teas, commissionAmount: 2.1 },
      ],
    };
    const created = await debit({ amount: 10.5, vendorsInfo });
    expect(created.vendorsInfo).toEqual(vendorsInfo);
    expect(created.processingInfo).toEqual({ processingStatus: 'PENDING' });
    // 12.5% of 10.50 is 1.3125: rounded down to 1.31
    expect(await splitRows(created.transactionId)).toEqual([
      { vendor_id: cakes, share: 131, refunded: 0 },
      { vendor_id: teas, share: 210, refunded: 0 },
    ]);
    const read = expectStatus(await api.get(`/alt-transactions/${created.transactionId}`, as(merchant)), 200);
    expect(read.body).toEqual(created);
  });

  it("XML vendor-info after transaction-id (the schema's order), the agreement's percent, and on retrieve", async () => {
    const request = xmlDocument('alt-transaction', {
      ...sepaDebitBody({ amount: '20.00' }),
      vendorInfo: { vendorId: cakes },
    });
    const created = expectStatus(await api.post('/alt-transactions', request, as(merchant, altXml)), 200);
    const id = created.body.transactionId;
    expect(created.text).toContain(
      `<transaction-id>${id}</transaction-id>` +
        `<vendor-info><vendor-id>${cakes}</vendor-id><commission-percent>30</commission-percent></vendor-info>` +
        '<amount>',
    );
    expect((await splitRows(id))[0]?.share).toBe(600);
    const read = expectStatus(await api.get(`/alt-transactions/${id}`, as(merchant, altXml)), 200);
    expect(read.text).toBe(created.text);
  });

  it('XML vendors-info with two vendor-info elements, after vendor-info', async () => {
    const request = xmlDocument('alt-transaction', sepaDebitBody({ amount: '40.00' })).replace(
      '</alt-transaction>',
      `<vendors-info><vendor-info><vendor-id>${cakes}</vendor-id><commission-amount>1.5</commission-amount></vendor-info>` +
        `<vendor-info><vendor-id>${teas}</vendor-id><commission-percent>10</commission-percent></vendor-info></vendors-info></alt-transaction>`,
    );
    const created = expectStatus(await api.post('/alt-transactions', request, as(merchant, altXml)), 200);
    expect(created.text).toContain(
      `</transaction-id><vendors-info><vendor-info><vendor-id>${cakes}</vendor-id><commission-amount>1.5</commission-amount></vendor-info>` +
        `<vendor-info><vendor-id>${teas}</vendor-id><commission-percent>10</commission-percent></vendor-info></vendors-info><amount>`,
    );
    expect((await splitRows(created.body.transactionId)).map((row) => row.share)).toEqual([150, 400]);
  });
});

describe('bad splits on a debit: the card errors, nothing written', () => {
  let inactive: number;
  let foreign: number;
  beforeAll(async () => {
    inactive = await newVendor({ vendorAgreement: { commissionPercent: 5, accountStatus: 'INACTIVE' } });
    foreign = await newVendor({}, await stack.newMerchant());
  });

  // The debit is 10.50.
  it.each(badSplitCases(10.51))(
    '%s: 400, no debit, mandate or split written',
    async (_name, split, expected) => {
      const before = await counts();
      const reply = await api.post(
        '/alt-transactions',
        sepaDebitBody(split({ cakes, teas, inactive, foreign })),
        as(merchant),
      );
      expect(failure(reply)).toEqual({ status: 400, ...expected });
      expect(await counts()).toEqual(before);
    },
  );

  it('in XML too, as <messages>', async () => {
    const request = xmlDocument('alt-transaction', {
      ...sepaDebitBody(),
      vendorInfo: { vendorId: inactive },
    });
    const reply = await api.post('/alt-transactions', request, as(merchant, altXml));
    expect(reply.status).toBe(400);
    expect(reply.text).toContain('<error-name>INACTIVE_VENDOR</error-name><code>20052</code>');
  });
});

describe('refunds of a split debit', () => {
  it('vendor amounts on a collected debit: each vendor gives back what is named, never more than its share', async () => {
    const created = await debit({
      amount: 40,
      vendorsInfo: {
        vendorInfo: [
          { vendorId: cakes, commissionAmount: 10 },
          { vendorId: teas, commissionAmount: 5 },
        ],
      },
    });
    const id = created.transactionId;
    await settled(id, 'SUCCESS');
    const before = await counts();
    const tooMuch = await api.post(
      `/transactions/refund/${id}`,
      { amount: 20, vendorsRefundInfo: { vendorRefundInfo: [{ vendorId: teas, vendorAmount: 5.01 }] } },
      as(merchant),
    );
    expect(failure(tooMuch)).toMatchObject({ status: 400, code: 14032 });
    const stranger = await api.post(
      `/transactions/refund/${id}`,
      { amount: 1, vendorsRefundInfo: { vendorRefundInfo: [{ vendorId: 999999, vendorAmount: 1 }] } },
      as(merchant),
    );
    expect(failure(stranger)).toMatchObject({ status: 400, code: 14045 });
    const one = await api.post(`/transactions/refund/${id}`, { amount: 1, vendorAmount: 1 }, as(merchant));
    expect(failure(one)).toMatchObject({ status: 400, code: 14044 });
    expect(await counts()).toEqual(before);

    const refund = expectStatus(
      await api.post(
        `/transactions/refund/${id}`,
        { amount: 12, vendorsRefundInfo: { vendorRefundInfo: [{ vendorId: cakes, vendorAmount: 4 }] } },
        as(merchant),
      ),
      200,
    );
    expect(refund.body.vendorsRefundInfo).toEqual({
      vendorRefundInfo: [{ vendorId: cakes, vendorAmount: 4 }],
    });
    // The rest, 28.00 of which the vendors hold 11.00: a refund without vendor amounts divides it.
    const rest = expectStatus(await api.post(`/transactions/refund/${id}`, {}, as(merchant)), 200);
    expect(rest.body.vendorsRefundInfo).toEqual({
      vendorRefundInfo: [
        { vendorId: cakes, vendorAmount: 6 },
        { vendorId: teas, vendorAmount: 5 },
      ],
    });
    expect(await splitRows(id)).toEqual([
      { vendor_id: cakes, share: 1000, refunded: 1000 },
      { vendor_id: teas, share: 500, refunded: 500 },
    ]);
  });

  it('XML vendor-amount answered with vendors-refund-info; PUT with vendor.{id}.amount (the SDK form)', async () => {
    const created = await debit({ amount: 30, vendorInfo: { vendorId: cakes, commissionAmount: 9 } });
    const id = created.transactionId;
    await settled(id, 'SUCCESS');
    const refund = expectStatus(
      await api.post(
        `/transactions/refund/${id}`,
        '<refund xmlns="http://ws.plimus.com"><amount>3</amount><vendor-amount>2</vendor-amount></refund>',
        as(merchant, { format: 'xml', accept: 'application/xml', shape: { root: 'refund' } }),
      ),
      200,
    );
    expect(refund.text).toContain(
      `<vendors-refund-info><vendor-refund-info><vendor-id>${cakes}</vendor-id><vendor-amount>2</vendor-amount></vendor-refund-info></vendors-refund-info>`,
    );
    expectStatus(
      await api.put(
        `/transactions/${id}/refund?amount=1.5&vendor.${cakes}.amount=0.5`,
        undefined,
        as(merchant),
      ),
      204,
    );
    expect(await vendorRefunds(id)).toEqual([
      { vendor_id: cakes, amount: 200, returned: false },
      { vendor_id: cakes, amount: 50, returned: false },
    ]);
  });

  it('a vendor amount on a debit without vendors is still 14030', async () => {
    const created = await debit({});
    await settled(created.transactionId, 'SUCCESS');
    const reply = await api.post(
      `/transactions/refund/${created.transactionId}`,
      { amount: 1, vendorAmount: 1 },
      as(merchant),
    );
    expect(failure(reply)).toMatchObject({ status: 400, code: 14030 });
  });

  it('a debit the bank returns gives back what is left of every share, as its refund', async () => {
    const created = await debit({
      amount: 20,
      sepaDirectDebitTransaction: { iban: RETURNED },
      vendorsInfo: {
        vendorInfo: [
          { vendorId: cakes, commissionAmount: 6 },
          { vendorId: teas, commissionPercent: 10 },
        ],
      },
    });
    const id = created.transactionId;
    await settled(id, 'SUCCESS');
    expectStatus(await api.post(`/transactions/refund/${id}`, { amount: 5 }, as(merchant)), 200);
    await settled(id, 'REFUNDED');
    expect(await vendorRefunds(id)).toEqual([
      // the merchant's 5.00 (a quarter of the debit): a quarter of each share
      { vendor_id: cakes, amount: 150, returned: false },
      { vendor_id: teas, amount: 50, returned: false },
      // the bank's return of the rest: everything left of each share
      { vendor_id: cakes, amount: 450, returned: true },
      { vendor_id: teas, amount: 150, returned: true },
    ]);
    expect(await splitRows(id)).toEqual([
      { vendor_id: cakes, share: 600, refunded: 600 },
      { vendor_id: teas, share: 200, refunded: 200 },
    ]);
  });
});
