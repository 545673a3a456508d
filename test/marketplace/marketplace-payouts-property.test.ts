import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectedIban, sepaDebitBody } from '../support/debits.ts';
import { as, client, expectStatus, saleBody } from '../support/http.ts';
import { completeVendor } from '../support/marketplace.ts';
import { createPlan, subscribe } from '../support/recurring.ts';
import { seededRandom } from '../support/seeded-random.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

// ---------------------------------------------------------------------------------------------------------
// A property of vendor payouts (docs/marketplace.md, Payouts), over real HTTP: for random split sales, split
// SEPA debits (collected, failed or returned by the bank), split daily subscriptions renewed by the renewal
// worker as the clock moves, random refunds (some naming vendor amounts) and
// random chargebacks (some then won), paid out day after day by the merchant's sandbox clock, every vendor's
// payouts add up to its shares of what was paid in less its refunds and its parts of the chargebacks not won,
// to the cent, with one payout per vendor, period and currency.
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
  // Noon by the merchant's clock: a round's few minutes of debit settlement never cross a payout day.
  const now = new Date(expectStatus(await api.get('/sandbox/clock', as(merchant)), 200).body.now);
  const noon = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1, 12);
  const toNoon = `PT${Math.floor((noon - now.getTime()) / 1000)}S`;
  expectStatus(await api.put('/sandbox/clock', { advanceBy: toNoon }, as(merchant)), 200);
});

/** The sandbox bank's answers by IBAN (docs/conformance.md, SEPA direct debit), and the status each ends in. */
const debitOutcomes = [
  { iban: collectedIban, status: 'SUCCESS' },
  { iban: 'DE62370400440532013001', status: 'FAIL' },
  { iban: 'DE35370400440532013002', status: 'REFUNDED' },
] as const;

afterAll(async () => {
  await stack?.close();
});

/** The run's seed: a failure names it, and another value explores other sales. */
const seed = 20261127;

const money = (minor: number) => (minor / 100).toFixed(2);

/**
 * What each vendor is owed, from the rows the sales, debits, refunds and chargebacks left: its shares of
 * captured sales and collected debits (a returned one refunded whole), less its refunded parts, less for each disputed sale its share of the disputed amounts not won
 * (rounded down per chargeback), never more than the share its refunds left.
 */
async function owed(): Promise<Map<number, number>> {
  const { rows } = await stack.db.query(
    `select s.vendor_id, s.share_minor::int as share, s.refunded_minor::int as refunded, t.amount_minor::int as amount,
            coalesce((select json_agg(cb.amount_minor::int) from chargeback cb
                       where cb.transaction_id = t.id and cb.status <> 'COMPLETED_WON'), '[]') as disputed
       from vendor_split s
       join (select id, amount_minor from card_transaction where status = 'CAPTURED'
             union all select id, amount_minor from sepa_debit where status in ('SUCCESS', 'REFUNDED')) t
         on t.id = s.transaction_id
      where s.merchant_id = $1`,
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
  it(`random sales, debits, renewals, refunds and chargebacks: each vendor is paid what it is owed, to the cent (seed ${seed})`, async () => {
    const next = seededRandom(seed);
    const disputes: string[] = [];
    const amountOf = () => 1000 + next(30_000);
    const splitOf = (amount: number) => {
      const named = vendors.filter(() => next(2) === 0);
      return (named.length > 0 ? named : [vendors[0] as number]).map((vendorId) =>
        next(2) === 0
          ? { vendorId, commissionPercent: 1 + next(30) }
          : { vendorId, commissionAmount: money(1 + next(Math.floor(amount / 4))) },
      );
    };
    // Daily subscriptions: each day the clock moves renews them, each renewal split by its terms.
    for (let n = 0; n < 2; n++) {
      const amount = amountOf();
      const planId = await createPlan(api, merchant, {
        currency: 'EUR',
        recurringChargeAmount: money(amount),
        chargeFrequency: 'DAILY',
      });
      await subscribe(api, merchant, planId, { vendorsInfo: { vendorInfo: splitOf(amount) } });
    }
    for (let round = 0; round < 3; round++) {
      const sales: { id: string; amount: number; card: boolean }[] = [];
      for (let n = 0; n < 6; n++) {
        const amount = amountOf();
        const reply = await api.post(
          '/transactions',
          saleBody({ amount: money(amount), currency: 'EUR', vendorsInfo: { vendorInfo: splitOf(amount) } }),
          as(merchant),
        );
        sales.push({ id: String(expectStatus(reply, 200).body.transactionId), amount, card: true });
      }
      // Split debits: only what the bank collects (and does not return) pays the vendors.
      const debits: { id: string; status: string; amount: number }[] = [];
      for (let n = 0; n < 3; n++) {
        const amount = amountOf();
        const outcome = debitOutcomes[next(debitOutcomes.length)] ?? debitOutcomes[0];
        const reply = await api.post(
          '/alt-transactions',
          sepaDebitBody({
            amount: money(amount),
            sepaDirectDebitTransaction: { iban: outcome.iban },
            vendorsInfo: { vendorInfo: splitOf(amount) },
          }),
          as(merchant),
        );
        debits.push({
          id: String(expectStatus(reply, 200).body.transactionId),
          status: outcome.status,
          amount,
        });
      }
      // Collected at once, returned one step later (two sandbox answers, minutes of the merchant's clock).
      for (const step of ['collected', 'returned']) {
        expectStatus(await api.put('/sandbox/clock', { advanceBy: 'PT3M' }, as(merchant)), 200);
        await waitFor(`round ${round}'s debits ${step}`, async () => {
          const { rows } = await stack.db.query(
            'select id::text, status from sepa_debit where id = any($1)',
            [debits.map((d) => d.id)],
          );
          const status = new Map(rows.map((row) => [row.id as string, row.status as string]));
          return debits.every(
            (d) =>
              status.get(d.id) === (step === 'collected' && d.status === 'REFUNDED' ? 'SUCCESS' : d.status),
          );
        });
      }
      sales.push(
        ...debits
          .filter((d) => d.status === 'SUCCESS')
          .map((d) => ({ id: d.id, amount: d.amount, card: false })),
      );
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
        if (sale.card && next(3) === 0) {
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
    // The seed's traffic met every case: vendor refunds of sales and debits, debits collected, failed and
    // returned, chargebacks standing and chargebacks won.
    const { rows } = await stack.db.query(
      `select (select count(*) from vendor_refund vr join refund r on r.id = vr.refund_id where r.merchant_id = $1)::int as refunds,
              (select count(*) from vendor_refund vr join sepa_refund r on r.id = vr.refund_id
                where r.merchant_id = $1 and not r.returned)::int as debit_refunds,
              (select count(*) from sepa_debit d where merchant_id = $1 and status = 'SUCCESS')::int as collected,
              (select count(*) from sepa_debit d where merchant_id = $1 and status = 'FAIL')::int as failed,
              (select count(*) from sepa_refund r where merchant_id = $1 and returned)::int as returned,
              (select count(*) from subscription_charge sc join vendor_split s on s.transaction_id = sc.card_transaction_id
                where sc.merchant_id = $1 and sc.kind = 'RECURRING')::int as renewal_splits,
              (select count(*) from chargeback where merchant_id = $1 and status <> 'COMPLETED_WON')::int as standing,
              (select count(*) from chargeback where merchant_id = $1 and status = 'COMPLETED_WON')::int as won`,
      [merchant.id],
    );
    expect(rows[0]).toEqual({
      refunds: expect.any(Number),
      debit_refunds: expect.any(Number),
      collected: expect.any(Number),
      failed: expect.any(Number),
      returned: expect.any(Number),
      renewal_splits: expect.any(Number),
      standing: expect.any(Number),
      won: expect.any(Number),
    });
    for (const count of Object.values(rows[0] as Record<string, number>)) expect(count).toBeGreaterThan(0);
  }, 180_000);
});
