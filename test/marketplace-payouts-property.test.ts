import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, client, expectStatus, saleBody } from './support/http.ts';
import { completeVendor } from './support/marketplace.ts';
import { seededRandom } from './support/seeded-random.ts';
import { type Stack, startStack, type TestMerchant } from './support/stack.ts';
import { waitFor } from './support/wait.ts';

// ---------------------------------------------------------------------------------------------------------
// A property of vendor payouts (docs/marketplace.md, Payouts), over real HTTP: for random split sales, random
// refunds (some naming vendor amounts) and random chargebacks (some then won), paid out day after day by the
// merchant's sandbox clock, every vendor's payouts add up to its shares less its refunds and its parts of the
// chargebacks not won, to the cent, with one payout per vendor, period and currency.
// ---------------------------------------------------------------------------------------------------------

let stack: Stack;
let api: ReturnType<typeof client>;
let merchant: TestMerchant;
const vendors: number[] = [];

beforeAll(async () => {
  stack = await startStack();
  api = client(stack);
  merchant = await stack.newMerchant();
  const account = (completeVendor().payoutInfo as Record<string, unknown>[])[0];
  for (const n of [1, 2, 3]) {
    const { delay: _, ...vendor } = completeVendor({
      email: `v${n}@example.com`,
      frequency: 'DAILY',
      payoutInfo: [{ ...account, minimalPayoutAmount: 0.01 }],
    });
    const reply = await api.post('/vendors', vendor, as(merchant));
    expect(reply.status, reply.text).toBe(201);
    const location = reply.headers.get('location') ?? '';
    vendors.push(Number(location.slice(location.lastIndexOf('/') + 1)));
  }
});

afterAll(async () => {
  await stack?.close();
});

/** The run's seed: a failure names it, and another value explores other sales. */
const seed = 20261127;

const money = (minor: number) => (minor / 100).toFixed(2);

/**
 * What each vendor is owed, from the rows the sales, refunds and chargebacks left: its shares of captured
 * sales, less its refunded parts, less for each disputed sale its share of the disputed amounts not won
 * (rounded down per chargeback), never more than the share its refunds left.
 */
async function owed(): Promise<Map<number, number>> {
  const { rows } = await stack.db.query(
    `select s.vendor_id, s.share_minor::int as share, s.refunded_minor::int as refunded, t.amount_minor::int as amount,
            coalesce((select json_agg(cb.amount_minor::int) from chargeback cb
                       where cb.transaction_id = t.id and cb.status <> 'COMPLETED_WON'), '[]') as disputed
       from vendor_split s join card_transaction t on t.id = s.transaction_id
      where s.merchant_id = $1 and t.status = 'CAPTURED'`,
    [merchant.id],
  );
  const owed = new Map<number, number>(vendors.map((vendor) => [vendor, 0]));
  for (const row of rows) {
    const charged = (row.disputed as number[]).reduce(
      (sum, amount) => sum + Math.floor((amount * row.share) / row.amount),
      0,
    );
    const net = row.share - row.refunded - Math.min(row.share - row.refunded, charged);
    owed.set(row.vendor_id, (owed.get(row.vendor_id) ?? 0) + net);
  }
  return owed;
}

/** Each vendor's payouts: what was paid, and how many payouts per period and currency. */
async function paid() {
  const { rows } = await stack.db.query(
    `select vendor_id, sum(amount_minor)::int as paid, max(n)::int as most_per_period
       from (select vendor_id, amount_minor, count(*) over (partition by vendor_id, period_end, currency) as n
               from vendor_payout where merchant_id = $1 and status = 'PAID') p
      group by vendor_id`,
    [merchant.id],
  );
  return new Map(rows.map((row) => [row.vendor_id as number, row]));
}

describe('vendor payouts, property', () => {
  it(`random sales, refunds and chargebacks: each vendor is paid what it is owed, to the cent (seed ${seed})`, async () => {
    const next = seededRandom(seed);
    const disputes: string[] = [];
    for (let round = 0; round < 3; round++) {
      const sales: { id: string; amount: number }[] = [];
      for (let n = 0; n < 6; n++) {
        const amount = 1000 + next(30_000);
        const named = vendors.filter(() => next(2) === 0);
        const split = (named.length > 0 ? named : [vendors[0] as number]).map((vendorId) =>
          next(2) === 0
            ? { vendorId, commissionPercent: 1 + next(30) }
            : { vendorId, commissionAmount: money(1 + next(Math.floor(amount / 4))) },
        );
        const reply = await api.post(
          '/transactions',
          saleBody({ amount: money(amount), currency: 'EUR', vendorsInfo: { vendorInfo: split } }),
          as(merchant),
        );
        sales.push({ id: String(expectStatus(reply, 200).body.transactionId), amount });
      }
      // Refunds and disputes of this round's sales: a vendor never owes more than the day's shares.
      for (const sale of sales) {
        if (next(2) === 0) {
          const { rows } = await stack.db.query(
            'select vendor_id, (share_minor - refunded_minor)::int as left from vendor_split where transaction_id = $1',
            [sale.id],
          );
          const amount = 1 + next(sale.amount);
          const named = rows.filter((row) => row.left > 0 && next(2) === 0);
          const body = {
            amount: money(amount),
            ...(named.length > 0
              ? {
                  vendorsRefundInfo: {
                    vendorRefundInfo: named.map((row) => ({
                      vendorId: row.vendor_id,
                      vendorAmount: money(1 + next(Math.min(row.left, Math.floor(amount / named.length)))),
                    })),
                  },
                }
              : {}),
          };
          // A refund the reference refuses (more than the merchant's part left, say) leaves nothing written.
          const refund = await api.post(`/transactions/refund/${sale.id}`, body, as(merchant));
          expect([200, 400], refund.text).toContain(refund.status);
        }
        if (next(3) === 0) {
          const dispute = await api.post(
            '/sandbox/chargebacks',
            { transactionId: sale.id, amount: money(1 + next(sale.amount)) },
            as(merchant),
          );
          if (dispute.status === 200) disputes.push(String(dispute.body.chargebackId));
        }
      }
      // Some earlier disputes won: their parts come back to the vendors and are paid with the next period.
      for (const id of disputes.splice(0, next(disputes.length + 1))) {
        if (next(2) === 0) continue;
        expectStatus(
          await api.put(`/sandbox/chargebacks/${id}`, { status: 'COMPLETED_WON' }, as(merchant)),
          200,
        );
      }
      const expected = await owed();
      expectStatus(await api.put('/sandbox/clock', { advanceBy: 'P1D' }, as(merchant)), 200);
      const payouts = await waitFor(
        `round ${round}'s payouts (seed ${seed})`,
        async () => {
          const now = await paid();
          return vendors.every((vendor) => (now.get(vendor)?.paid ?? 0) === expected.get(vendor)) && now;
        },
        30_000,
      ).catch(async (error: Error) => {
        const now = await paid();
        throw new Error(
          `${error.message}: owed ${JSON.stringify([...expected])}, paid ${JSON.stringify(vendors.map((v) => now.get(v)?.paid ?? 0))}`,
        );
      });
      for (const vendor of vendors) expect(payouts.get(vendor)?.most_per_period ?? 1).toBe(1);
    }
    // The seed's sales met every case: vendor refunds, chargebacks standing and chargebacks won.
    const { rows } = await stack.db.query(
      `select (select count(*) from vendor_refund vr join refund r on r.id = vr.refund_id where r.merchant_id = $1)::int as refunds,
              (select count(*) from chargeback where merchant_id = $1 and status <> 'COMPLETED_WON')::int as standing,
              (select count(*) from chargeback where merchant_id = $1 and status = 'COMPLETED_WON')::int as won`,
      [merchant.id],
    );
    expect(rows[0]).toEqual({
      refunds: expect.any(Number),
      standing: expect.any(Number),
      won: expect.any(Number),
    });
    for (const count of Object.values(rows[0] as Record<string, number>)) expect(count).toBeGreaterThan(0);
  }, 180_000);
});
