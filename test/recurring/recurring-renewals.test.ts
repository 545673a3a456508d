import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { type RunningCore, startCore } from '@paywire/core';
import { createLogger } from '@paywire/observability';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { as, client, expectStatus } from '../support/http.ts';
import { hookConfig, type IpnReceiver, type ReceivedIpn, startIpnReceiver } from '../support/ipn-receiver.ts';
import { freePort } from '../support/ports.ts';
import { createPlan, subscribe } from '../support/recurring.ts';
import {
  newDatabase,
  newFacadeCredential,
  newMerchant as newMerchantIn,
  type Stack,
  startFacade,
  startStack,
  type TestMerchant,
} from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

// ---------------------------------------------------------------------------------------------------------
// Renewals, dunning, SEPA reminders and subscription notifications (README, Renewals, dunning and
// reminders), over real HTTP: each test has a merchant of its own (its own sandbox clock) whose every
// subscription event goes to a hook of the IPN receiver; time moves with PUT /sandbox/clock only.
// ---------------------------------------------------------------------------------------------------------

const events = [
  'Charge',
  'Recurring',
  'SubCcFailure',
  'SubscriptionReminder',
  'Cancellation',
  'CancelOnRenewal',
  'ContractChange',
  'Refund',
  'ChargePending',
];

const MASTERCARD = {
  cardNumber: '5425233430109903',
  securityCode: '123',
  expirationMonth: '04',
  expirationYear: '2032',
};
const IBAN = 'DE89370400440532013000';

let stack: Stack;
let receiver: IpnReceiver;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  [stack, receiver] = await Promise.all([startStack(), startIpnReceiver()]);
  api = client(stack);
});

// A renewal that failed (logged, left to a later run) must not pass unseen.
afterEach(() => {
  expect(stack.logs.filter((line) => line.includes('subscription renewal failed'))).toEqual([]);
});

afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

/** Where a merchant's calls go: a facade, and the database behind it. */
interface Place {
  api: ReturnType<typeof client>;
  db: pg.Pool;
}

interface Merchant {
  merchant: TestMerchant;
  place: Place;
  hook: string;
  /** The IPNs of one event type the merchant received, in order. */
  ipns(event: string): ReceivedIpn[];
}

/** A merchant of its own (its own clock), every subscription event going to a hook of its own. */
async function newMerchant(
  place: Place = { api, db: stack.db },
  merchant: TestMerchant | Promise<TestMerchant> = stack.newMerchant(),
): Promise<Merchant> {
  const hook = receiver.newHook();
  expectStatus(
    await place.api.post(
      '/notification-config',
      hookConfig(
        hook,
        events.map((event) => `send${event}`),
      ),
      as(await merchant),
    ),
    200,
  );
  const transactionType = (event: string) => event.replace(/(?<=[a-z])(?=[A-Z])/g, '_').toUpperCase();
  return {
    merchant: await merchant,
    place,
    hook,
    ipns: (event) =>
      receiver.at(hook).filter((ipn) => ipn.params.get('transactionType') === transactionType(event)),
  };
}

/**
 * Advances the merchant's clock and waits for a renewal run that started after it to complete: once it
 * returns, everything the advance made due has been worked (what is not charged then never will be).
 */
async function advance(m: Merchant, duration: string): Promise<void> {
  const { rows } = await m.place.db.query<{ before: Date }>('select clock_timestamp() as before');
  expectStatus(await m.place.api.put('/sandbox/clock', { advanceBy: duration }, as(m.merchant)), 200);
  await waitFor('a renewal run after the clock advance', async () => {
    const runs = await m.place.db.query(
      `select 1 from pgboss.job where name = 'recurring-renewal' and state = 'completed' and started_on > $1`,
      [rows[0]?.before],
    );
    return runs.rows.length > 0;
  });
}

interface ChargeRow {
  period: number;
  status: string;
  attempt: number;
  due_date: string;
  card_transaction_id: string | null;
  sepa_debit_id: string | null;
}

async function charges(subscriptionId: number): Promise<ChargeRow[]> {
  const { rows } = await stack.db.query<ChargeRow>(
    `select period, status, attempt, due_date::text, card_transaction_id, sepa_debit_id from subscription_charge
     where subscription_id = $1 and period > 0 order by period`,
    [subscriptionId],
  );
  return rows;
}

interface ScheduleRow {
  status: string;
  next_period: number;
  next_charge_date: string | null;
  charges_made: number;
  leased: boolean;
  retry_at: Date | null;
}

async function schedule(subscriptionId: number): Promise<ScheduleRow> {
  const { rows } = await stack.db.query<ScheduleRow>(
    `select status, next_period, next_charge_date::text, charges_made, renewal_lease_until is not null as leased,
       retry_at from subscription where id = $1`,
    [subscriptionId],
  );
  return rows[0] as ScheduleRow;
}

/** Waits until the renewal worker has walked the subscription up to the merchant's now and let it go. */
function settledWhen(subscriptionId: number, done: (row: ScheduleRow) => boolean): Promise<ScheduleRow> {
  return waitFor(`subscription ${subscriptionId} renewed`, async () => {
    const row = await schedule(subscriptionId);
    return !row.leased && done(row) ? row : undefined;
  });
}

/** Each delivery of the hook made: waits for `count` IPNs of the event. */
const received = (m: Merchant, event: string, count: number) =>
  waitFor(`${count} ${event} IPNs`, () => (m.ipns(event).length >= count ? m.ipns(event) : undefined));

/** The IPN transactionDate of midnight UTC of a day (yyyy-mm-dd): when a period dated that day fell due. */
const midnightOf = (day: string) => `${day.replace(/^(\d{4})-(\d{2})-(\d{2})$/, '$2/$3/$1')} 12:00:00 AM`;

const addMonths = (date: string, months: number) => {
  const start = new Date(`${date}T00:00:00Z`);
  const target = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + months, 1));
  const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(start.getUTCDate(), last));
  return target.toISOString().slice(0, 10);
};

describe('renewals by the merchant clock', () => {
  it('charges one due period once, as a transaction of the shopper, with a Recurring IPN', async () => {
    const m = await newMerchant();
    const planId = await createPlan(m.place.api, m.merchant);
    const subscription = await subscribe(m.place.api, m.merchant, planId);
    const id = Number(subscription.subscriptionId);
    const firstDate = (await schedule(id)).next_charge_date as string;

    await advance(m, 'P32D');
    const after = await settledWhen(id, (row) => row.next_period === 2);
    expect(after).toMatchObject({ status: 'ACTIVE', next_charge_date: addMonths(firstDate, 1) });
    const [charge, ...more] = await charges(id);
    expect(more).toEqual([]);
    expect(charge).toMatchObject({ period: 1, status: 'CHARGED', due_date: firstDate });

    // The charge is the shopper's transaction, readable like any sale.
    const transaction = expectStatus(
      await api.get(`/transactions/${charge?.card_transaction_id}`, as(m.merchant)),
      200,
    ).body;
    expect(transaction).toMatchObject({
      amount: 9.99,
      currency: 'USD',
      vaultedShopperId: subscription.vaultedShopperId,
    });
    const shown = expectStatus(await api.get(`/recurring/subscriptions/${id}`, as(m.merchant)), 200).body;
    expect(shown.nextChargeDate).toBe(addMonths(firstDate, 1));

    const [recurring] = await received(m, 'Recurring', 1);
    expect(Object.fromEntries(recurring?.params ?? [])).toMatchObject({
      referenceNumber: charge?.card_transaction_id,
      subscriptionId: String(id),
      contractId: String(planId),
      contractName: 'Gold',
      accountId: String(subscription.vaultedShopperId),
      invoiceAmount: '9.99',
      currency: 'USD',
      creditCardLastFourDigits: '9299',
      untilDate: addMonths(firstDate, 1).replace(/^(\d{4})-(\d{2})-(\d{2})$/, '$2/$3/$1'),
    });
    expect(recurring?.params.get('recurringDisclaimer')).toContain('9.99 USD');
    // The renewal is Recurring only: the initial charge was the one Charge.
    expect(m.ipns('Charge')).toHaveLength(1);
  });

  it('charges each period a long advance skipped, once each, dated when it fell due', async () => {
    const m = await newMerchant();
    const planId = await createPlan(m.place.api, m.merchant, {
      chargeFrequency: 'WEEKLY',
      recurringChargeAmount: 3,
    });
    const id = Number((await subscribe(m.place.api, m.merchant, planId)).subscriptionId);
    const firstDate = (await schedule(id)).next_charge_date as string;

    await advance(m, 'P22D'); // periods 1, 2 and 3 fall due (days 7, 14, 21)
    await settledWhen(id, (row) => row.next_period === 4);
    const rows = await charges(id);
    const day = (offset: number) =>
      new Date(Date.parse(`${firstDate}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);
    expect(rows.map((row) => [row.period, row.status, row.due_date])).toEqual([
      [1, 'CHARGED', day(0)],
      [2, 'CHARGED', day(7)],
      [3, 'CHARGED', day(14)],
    ]);
    expect(new Set(rows.map((row) => row.card_transaction_id)).size).toBe(3);
    const recurring = await received(m, 'Recurring', 3);
    expect(recurring.map((ipn) => ipn.params.get('transactionDate')).sort()).toEqual(
      [day(0), day(7), day(14)].map(midnightOf).sort(),
    );

    // A second advance that makes nothing due charges nothing more: proven after the run it kicked.
    await advance(m, 'PT1H');
    await settledWhen(id, (row) => row.next_period === 4);
    expect(await charges(id)).toHaveLength(3);
  });

  it('charges nothing during a trial, then the first period when it ends', async () => {
    const m = await newMerchant();
    const planId = await createPlan(m.place.api, m.merchant, { trialPeriodDays: 14 });
    const subscription = await subscribe(m.place.api, m.merchant, planId);
    const id = Number(subscription.subscriptionId);
    expect(m.ipns('Charge')).toHaveLength(0);
    const trialEnd = (await schedule(id)).next_charge_date as string;

    await advance(m, 'P10D');
    await advance(m, 'PT1S'); // a second run after the first: still in the trial
    await settledWhen(id, (row) => row.next_period === 1);
    expect(await charges(id)).toEqual([]);

    await advance(m, 'P5D');
    await settledWhen(id, (row) => row.next_period === 2);
    expect((await charges(id)).map((row) => [row.status, row.due_date])).toEqual([['CHARGED', trialEnd]]);
    // The trial's first payment is a Charge, as a subscription's first payment is.
    await received(m, 'Charge', 1);
    expect(m.ipns('Recurring')).toHaveLength(0);
  });

  it('finishes the subscription after maxNumberOfCharges charges after the initial one', async () => {
    const m = await newMerchant();
    const planId = await createPlan(m.place.api, m.merchant, {
      chargeFrequency: 'DAILY',
      recurringChargeAmount: 1,
      maxNumberOfCharges: 3,
    });
    const id = Number((await subscribe(m.place.api, m.merchant, planId)).subscriptionId);
    await advance(m, 'P10D');
    const after = await settledWhen(id, (row) => row.status !== 'ACTIVE');
    expect(after).toMatchObject({ status: 'FINISHED', charges_made: 4, next_charge_date: null });
    const shown = expectStatus(await api.get(`/recurring/subscriptions/${id}`, as(m.merchant)), 200).body;
    expect(shown.status).toBe('FINISHED');
  });

  it('ends a subscription whose autoRenew is off at its period end, without charging it', async () => {
    const m = await newMerchant();
    const planId = await createPlan(m.place.api, m.merchant);
    const id = Number((await subscribe(m.place.api, m.merchant, planId)).subscriptionId);
    const periodEnd = (await schedule(id)).next_charge_date as string;
    expectStatus(await api.put(`/recurring/subscriptions/${id}`, { autoRenew: false }, as(m.merchant)), 200);
    const [notice] = await received(m, 'CancelOnRenewal', 1);
    expect(Object.fromEntries(notice?.params ?? [])).toMatchObject({
      subscriptionId: String(id),
      contractId: String(planId),
      untilDate: periodEnd.replace(/^(\d{4})-(\d{2})-(\d{2})$/, '$2/$3/$1'),
    });

    await advance(m, 'P40D');
    const after = await settledWhen(id, (row) => row.status !== 'ACTIVE');
    expect(after).toMatchObject({ status: 'CANCELED', next_charge_date: null });
    expect(await charges(id)).toEqual([]);
    expect(m.ipns('Recurring')).toHaveLength(0);
  });
});

describe('dunning', () => {
  it('retries a declined renewal within the grace period, suspends it, and resumes it when the card changes', async () => {
    const m = await newMerchant();
    // 9.51 is the sandbox's insufficient-funds amount: every renewal declines; the initial charge does not.
    const planId = await createPlan(m.place.api, m.merchant, {
      recurringChargeAmount: 9.51,
      initialChargeAmount: 5,
      gracePeriodDays: 5,
    });
    const id = Number((await subscribe(m.place.api, m.merchant, planId)).subscriptionId);
    const dueDate = (await schedule(id)).next_charge_date as string;

    await advance(m, 'P32D'); // the first attempt declines and day 1's retry too
    let row = await settledWhen(id, (r) => r.retry_at !== null && r.status === 'ACTIVE');
    expect(row.next_period).toBe(1);
    await advance(m, 'P10D'); // days 3 and 5 (the grace period's last day) decline too: SUSPENDED
    row = await settledWhen(id, (r) => r.status === 'SUSPENDED');
    expect(row).toMatchObject({ next_period: 1, next_charge_date: dueDate, retry_at: null });
    // Attempts on the due day, then days 1, 3 and 5 (the grace period's last): each dated when it fell due.
    const failures = await received(m, 'SubCcFailure', 4);
    const dueDay = (offset: number) =>
      new Date(Date.parse(`${dueDate}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);
    expect(failures.map((ipn) => ipn.params.get('transactionDate')).sort()).toEqual(
      [0, 1, 3, 5].map((offset) => midnightOf(dueDay(offset))).sort(),
    );
    expect(Object.fromEntries(m.ipns('SubCcFailure')[0]?.params ?? [])).toMatchObject({
      subscriptionId: String(id),
      contractId: String(planId),
      invoiceAmount: '9.51',
      creditCardLastFourDigits: '9299',
      declineReason: 'INSUFFICIENT_FUNDS',
    });
    // Suspended: a later advance attempts nothing (proven after the run it kicked, as the lease shows).
    await advance(m, 'P3D');
    await settledWhen(id, (r) => r.status === 'SUSPENDED');
    expect(m.ipns('SubCcFailure')).toHaveLength(4);

    // A new card (and an amount the sandbox approves) resumes it: charged at once.
    expectStatus(
      await api.put(
        `/recurring/subscriptions/${id}`,
        { paymentSource: { creditCardInfo: { creditCard: MASTERCARD } }, overrideRecurringChargeAmount: 9.5 },
        as(m.merchant),
      ),
      200,
    );
    row = await settledWhen(id, (r) => r.status === 'ACTIVE' && r.next_period === 2);
    const [charged] = (await charges(id)).filter((charge) => charge.status === 'CHARGED');
    expect(charged).toMatchObject({ period: 1 });
    const [recurring] = await received(m, 'Recurring', 1);
    expect(recurring?.params.get('creditCardLastFourDigits')).toBe('9903');
    // The periods that fell due while it was suspended are not charged: the next one is ahead.
    expect(row.next_charge_date && row.next_charge_date > dueDate).toBe(true);
  });

  it('without a grace period a declined renewal leaves the subscription active for the next period', async () => {
    const m = await newMerchant();
    const planId = await createPlan(m.place.api, m.merchant, {
      recurringChargeAmount: 9.51,
      initialChargeAmount: 5,
    });
    const id = Number((await subscribe(m.place.api, m.merchant, planId)).subscriptionId);
    const dueDate = (await schedule(id)).next_charge_date as string;
    await advance(m, 'P32D');
    const row = await settledWhen(id, (r) => r.next_period === 2);
    expect(row).toMatchObject({ status: 'ACTIVE', retry_at: null, next_charge_date: addMonths(dueDate, 1) });
    await received(m, 'SubCcFailure', 1);
    expect(m.ipns('Recurring')).toHaveLength(0);
  });
});

describe('SEPA subscriptions', () => {
  it('sends the reminder with the pre-notification 6 business days before each debit, then debits', async () => {
    const m = await newMerchant();
    const planId = await createPlan(m.place.api, m.merchant, {
      currency: 'EUR',
      recurringChargeAmount: 12.5,
    });
    const subscription = await subscribe(m.place.api, m.merchant, planId, {
      paymentSource: { sepaDirectDebitInfo: { iban: IBAN } },
      authorizedByShopper: true,
    });
    const id = Number(subscription.subscriptionId);
    const chargeDate = (await schedule(id)).next_charge_date as string;
    const clock = expectStatus(await api.get('/sandbox/clock', as(m.merchant)), 200).body;
    // Up to 13 days before the charge date: no reminder yet (6 business days span at most 12 days).
    const daysToCharge = Math.floor(
      (Date.parse(`${chargeDate}T00:00:00Z`) - Date.parse(clock.now)) / 86_400_000,
    );
    await advance(m, `P${daysToCharge - 13}D`);
    await settledWhen(id, (r) => r.next_period === 1);
    expect(m.ipns('SubscriptionReminder')).toHaveLength(0);

    await advance(m, 'P12D'); // the day before the charge: reminded, not debited
    const [reminder] = await received(m, 'SubscriptionReminder', 1);
    const params = Object.fromEntries(reminder?.params ?? []);
    expect(params).toMatchObject({
      subscriptionId: String(id),
      contractId: String(planId),
      invoiceAmount: '12.50',
      currency: 'EUR',
      paymentMethod: 'SEPA_DIRECT_DEBIT',
      untilDate: chargeDate.replace(/^(\d{4})-(\d{2})-(\d{2})$/, '$2/$3/$1'),
    });
    expect(params.preNotificationText).toContain('12.50');
    expect(params.preNotificationText).toContain(params.sepaMandateId);
    expect(params.preNotificationText).toContain('3000'); // the IBAN's last four, never the IBAN
    expect(reminder?.body).not.toContain(IBAN);
    const translations = expectStatus(
      await api.get(`/translations/sepa/prenotification?subscriptionid=${id}`, as(m.merchant)),
      200,
    ).body;
    expect(
      translations.translations.find((t: { language: string }) => t.language === 'en').translationText,
    ).toBe(params.preNotificationText);
    const german = expectStatus(
      await api.get(`/translations/sepa/prenotification?subscriptionid=${id}&language=de`, {
        ...as(m.merchant),
        accept: 'application/xml',
        shape: { root: 'sepa-pre-notification', repeated: ['translation'] },
      }),
      200,
    ).body;
    expect(german.translations.translation[0]).toMatchObject({ language: 'de' });
    expect(german.translations.translation[0].translationText).toContain('12,50');
    // Another merchant's subscription is not found; a transaction and a subscription at once is refused.
    const other = await newMerchant();
    const unknown = await api.get(
      `/translations/sepa/prenotification?subscriptionid=${id}`,
      as(other.merchant),
    );
    expect(expectStatus(unknown, 404).body.message[0]).toMatchObject({ errorName: 'SUBSCRIPTION_NOT_FOUND' });
    const both = await api.get(
      `/translations/sepa/prenotification?subscriptionid=${id}&transactionid=1`,
      as(m.merchant),
    );
    expect(expectStatus(both, 400).body.message[0]).toMatchObject({
      errorName: 'VALIDATION_GENERAL_FAILURE',
      invalidProperty: { name: 'subscriptionId' },
    });
    const card = Number(
      (await subscribe(m.place.api, m.merchant, await createPlan(m.place.api, m.merchant))).subscriptionId,
    );
    const noDebit = await api.get(
      `/translations/sepa/prenotification?subscriptionid=${card}`,
      as(m.merchant),
    );
    expect(expectStatus(noDebit, 400).body.message[0]).toMatchObject({
      errorName: 'VALIDATION_GENERAL_FAILURE',
      invalidProperty: { name: 'subscriptionId' },
    });
    expect(await charges(id)).toEqual([]);

    await advance(m, 'P2D'); // the debit is submitted on its date and settles
    await settledWhen(id, (r) => r.next_period === 2);
    const [debit] = await charges(id);
    expect(debit).toMatchObject({ period: 1, status: 'CHARGED', due_date: chargeDate });
    expect(debit?.sepa_debit_id).not.toBeNull();
    await advance(m, 'PT5M'); // the bank collects it (SEPA_SANDBOX_SETTLE_SECONDS after submission)
    const [recurring] = await received(m, 'Recurring', 1);
    expect(Object.fromEntries(recurring?.params ?? [])).toMatchObject({
      referenceNumber: debit?.sepa_debit_id,
      subscriptionId: String(id),
      paymentMethod: 'SEPA_DIRECT_DEBIT',
    });
    expect(m.ipns('SubscriptionReminder')).toHaveLength(1);
  });
});

describe('refunds', () => {
  it('a refund cancels the charge subscription unless cancelSubscriptions is false', async () => {
    const m = await newMerchant();
    const planId = await createPlan(m.place.api, m.merchant);
    const kept = Number((await subscribe(m.place.api, m.merchant, planId)).subscriptionId);
    const canceled = Number((await subscribe(m.place.api, m.merchant, planId)).subscriptionId);
    await advance(m, 'P32D');
    await settledWhen(kept, (r) => r.next_period === 2);
    await settledWhen(canceled, (r) => r.next_period === 2);
    const [keptCharge] = await charges(kept);
    const [canceledCharge] = await charges(canceled);

    // The original's two forms: PUT with query parameters (204), POST with a body (200).
    expectStatus(
      await api.put(
        `/transactions/${keptCharge?.card_transaction_id}/refund?cancelsubscriptions=false`,
        undefined,
        as(m.merchant),
      ),
      204,
    );
    expectStatus(
      await api.post(`/transactions/refund/${canceledCharge?.card_transaction_id}`, {}, as(m.merchant)),
      200,
    );
    expect((await schedule(canceled)).status).toBe('CANCELED');
    expect((await schedule(kept)).status).toBe('ACTIVE');
    const [cancellation] = await received(m, 'Cancellation', 1);
    expect(Object.fromEntries(cancellation?.params ?? [])).toMatchObject({
      subscriptionId: String(canceled),
      contractId: String(planId),
    });
    expect(m.ipns('Cancellation')).toHaveLength(1);
  });
});

describe('exactly once across cores and crashes', () => {
  /** Subscriptions of one merchant, all due after one advance. */
  async function dueSubscriptions(m: Merchant, count: number): Promise<number[]> {
    const planId = await createPlan(m.place.api, m.merchant, {
      chargeFrequency: 'WEEKLY',
      recurringChargeAmount: 2,
    });
    const ids: number[] = [];
    for (let n = 0; n < count; n++)
      ids.push(Number((await subscribe(m.place.api, m.merchant, planId)).subscriptionId));
    return ids;
  }

  /** Every subscription at `periods` + 1, each period charged by one charge row and one sale, no other sale. */
  async function expectEachPeriodOnce(db: pg.Pool, ids: number[], periods: number): Promise<void> {
    await waitFor(
      'every subscription renewed',
      async () => {
        const { rows } = await db.query<{ n: number }>(
          `select count(*)::int as n from subscription
           where id = any($1) and next_period = $2 and renewal_lease_until is null`,
          [ids, periods + 1],
        );
        return rows[0]?.n === ids.length;
      },
      // a bound, not a target: restarted cores take the leases over after they lapse, slowly on a loaded machine
      180_000,
      200,
    );
    const { rows } = await db.query<{ n: number; sales: number }>(
      `select count(*)::int as n, count(t.id)::int as sales from subscription_charge c
         left join card_transaction t on t.id = c.card_transaction_id
       where c.subscription_id = any($1) and c.period > 0 and c.status = 'CHARGED'
       group by c.subscription_id, c.period`,
      [ids],
    );
    expect(rows).toHaveLength(ids.length * periods);
    for (const row of rows) expect([row.n, row.sales]).toEqual([1, 1]);
    const { rows: sales } = await db.query<{ n: number }>(
      `select count(*)::int as n from card_transaction t join subscription s on s.shopper_id = t.shopper_id
       where s.id = any($1)`,
      [ids],
    );
    expect(sales[0]?.n).toBe(ids.length * (periods + 1)); // the initial charges too, and nothing else
  }

  it('two cores on one database charge each period once', { timeout: 300_000 }, async () => {
    const second: RunningCore = await startCore({
      ...stack.coreOptions,
      log: createLogger('core-second', (line) => stack.logs.push(line)),
    });
    try {
      const m = await newMerchant();
      const ids = await dueSubscriptions(m, 30);
      await advance(m, 'P15D'); // periods 1 and 2
      await expectEachPeriodOnce(stack.db, ids, 2);
      await received(m, 'Recurring', 60);
      const references = m.ipns('Recurring').map((ipn) => ipn.params.get('referenceNumber'));
      expect(new Set(references).size).toBe(60);
    } finally {
      await second.close();
    }
  });

  it('a core killed mid-run leaves no period charged twice or lost', { timeout: 300_000 }, async () => {
    // Core alone on a database of its own, as a child process whose acquirer answers after 250 ms; killed
    // while renewals are in flight, then started again.
    const databaseUrl = await newDatabase('paywire_renewal_crash');
    const db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    const corePath = fileURLToPath(new URL('../../apps/core/src/main.ts', import.meta.url));
    const port = await freePort();
    const env = {
      ...process.env,
      DATABASE_URL: databaseUrl,
      CORE_PORT: String(port),
      CARD_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      SANDBOX_ACQUIRER_LATENCY_MS: '250',
      PAYMENT_RECOVERY_AFTER_SECONDS: '2',
    };
    const startChild = async () => {
      const child = spawn(process.execPath, [corePath], { env, stdio: 'ignore' });
      // Ready, not only listening: a core answers 503 until its workers have started. Bounded generously:
      // a loaded 2-core machine can take many seconds to start one.
      await waitFor(
        'core to be ready',
        () =>
          fetch(`http://127.0.0.1:${port}/readyz`).then(
            (response) => response.ok,
            () => false,
          ),
        60_000,
      );
      return child;
    };
    let child: ChildProcess = await startChild();
    const facade = await startFacade(`http://127.0.0.1:${port}/trpc`, await newFacadeCredential(databaseUrl));
    try {
      const place = { api: client({ ...stack, baseUrl: facade.baseUrl }), db };
      const m = await newMerchant(place, newMerchantIn(databaseUrl));
      const ids = await dueSubscriptions(m, 40);
      expectStatus(await place.api.put('/sandbox/clock', { advanceBy: 'P8D' }, as(m.merchant)), 200);
      await waitFor('renewals in flight', async () => {
        const { rows } = await db.query(
          `select 1 from payment_attempt a join subscription_charge c on c.period = 1 and c.status = 'PENDING'
           where a.state = 'PENDING' limit 1`,
        );
        return rows.length > 0;
      });
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      });
      const { rows: cut } = await db.query<{ n: number }>(
        `select count(*)::int as n from subscription_charge where period = 1 and status = 'PENDING'`,
      );
      expect(cut[0]?.n).toBeGreaterThan(0); // the kill did land on renewals in flight
      child = await startChild();
      await expectEachPeriodOnce(db, ids, 1);
      await waitFor(
        'unknown outcomes resolved',
        async () => {
          const { rows } = await db.query(
            `select 1 from payment_attempt where state in ('PENDING', 'VOIDING')`,
          );
          return rows.length === 0;
        },
        30_000,
        200,
      );
    } finally {
      child.kill('SIGKILL');
      await facade.close();
      await db.end();
    }
  });
});

describe('plan switches and cancellations (the events the API emits through events.ts)', () => {
  it('ContractChange names both plans; Cancellation ends it now', async () => {
    const m = await newMerchant();
    const gold = await createPlan(m.place.api, m.merchant);
    const silver = await createPlan(m.place.api, m.merchant, { name: 'Silver', recurringChargeAmount: 4.99 });
    const id = Number((await subscribe(m.place.api, m.merchant, gold)).subscriptionId);
    expectStatus(await api.put(`/recurring/subscriptions/${id}`, { planId: silver }, as(m.merchant)), 200);
    const [change] = await received(m, 'ContractChange', 1);
    expect(Object.fromEntries(change?.params ?? [])).toMatchObject({
      subscriptionId: String(id),
      contractId: String(silver),
      contractName: 'Silver',
      cancelledContractId: String(gold),
      cancelledContractName: 'Gold',
      contractChargePrice: '4.99',
    });
    expectStatus(
      await api.put(`/recurring/subscriptions/${id}`, { status: 'CANCELED' }, as(m.merchant)),
      200,
    );
    const [cancellation] = await received(m, 'Cancellation', 1);
    expect(Object.fromEntries(cancellation?.params ?? [])).toMatchObject({
      subscriptionId: String(id),
      contractId: String(silver),
    });
    // Nothing renews a canceled subscription: proven after the run the advance kicked.
    await advance(m, 'P40D');
    await settledWhen(id, (row) => row.status === 'CANCELED');
    expect(await charges(id)).toEqual([]);
  });

  it('sends each event only to destinations whose flag is on', async () => {
    const merchant = await stack.newMerchant();
    const hook = receiver.newHook();
    expectStatus(
      await api.post(
        '/notification-config',
        hookConfig(hook, ['sendCharge', 'sendSubCcFailure']),
        as(merchant),
      ),
      200,
    );
    const m: Merchant = { merchant, place: { api, db: stack.db }, hook, ipns: () => [] };
    const planId = await createPlan(m.place.api, m.merchant, { chargeFrequency: 'WEEKLY' });
    const id = Number((await subscribe(m.place.api, m.merchant, planId)).subscriptionId);
    await advance(m, 'P8D');
    await settledWhen(id, (row) => row.next_period === 2);
    const { rows } = await stack.db.query<{ event: string }>(
      'select event from ipn_delivery where merchant_id = $1 order by id',
      [merchant.id],
    );
    expect(rows.map((row) => row.event)).toEqual(['Charge']); // the renewal's Recurring was not wanted
  });
});
