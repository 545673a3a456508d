// Issue 27, pending refunds: a refund its processor has only received is a PENDING row until the processor
// does it (its Refund IPN then) or the merchant cancels it with DELETE /transactions/pending-refund/{id};
// the PendingRefunds report lists exactly those rows. Over real HTTP, JSON and XML, against the sandbox
// (a refund of an amount ending in .52 stays pending) and a fake Adyen (a refund it answered received).
import { createSandboxProcessor } from '@paywire/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ProcessorUnavailable } from '../../apps/core/src/processors/processor.ts';
import { adyenTestCard, type FakeAdyenAccount, fakeAdyenAccount, operatorOf } from '../support/adyen.ts';
import { sepaDebitBody } from '../support/debits.ts';
import { as, client, expectStatus, saleBody, xmlDocument } from '../support/http.ts';
import { hookConfig, type IpnReceiver, startIpnReceiver } from '../support/ipn-receiver.ts';
import { completeVendor } from '../support/marketplace.ts';
import { createPlan, subscribe } from '../support/recurring.ts';
import { fetchReport } from '../support/reports.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

let stack: Stack;
let api: ReturnType<typeof client>;
let receiver: IpnReceiver;
const fakes: FakeAdyenAccount[] = [];

beforeAll(async () => {
  stack = await startStack();
  api = client(stack);
  receiver = await startIpnReceiver();
});
afterEach(() => {
  for (const account of fakes) account.expectNoViolations();
});
afterAll(async () => {
  for (const account of fakes) await account.fake.close();
  await receiver?.close();
  await stack?.close();
});

/** A merchant whose Refund IPNs reach a hook of its own. */
async function merchantWithHook(): Promise<{ merchant: TestMerchant; hook: string }> {
  const merchant = await stack.newMerchant();
  const hook = receiver.newHook();
  const config = hookConfig(hook, ['sendRefund', 'sendCancellationRefund']);
  expectStatus(await api.post('/notification-config', config, as(merchant)), 200);
  return { merchant, hook };
}

async function sale(merchant: TestMerchant, overrides: Record<string, unknown> = {}): Promise<string> {
  const reply = expectStatus(await api.post('/transactions', saleBody(overrides), as(merchant)), 200);
  return String(reply.body.transactionId);
}

async function refundRows(transactionId: string) {
  const { rows } = await stack.db.query<{ id: string; status: string; amount_minor: string }>(
    'select id::text, status, amount_minor::text from refund where transaction_id = $1 order by id',
    [transactionId],
  );
  return rows;
}

async function refundedMinor(transactionId: string): Promise<number> {
  const { rows } = await stack.db.query<{ refunded: string }>(
    'select refunded_minor::text as refunded from card_transaction where id = $1',
    [transactionId],
  );
  return Number(rows[0]?.refunded);
}

async function pendingReport(merchant: TestMerchant) {
  return (await fetchReport(api, merchant, 'PendingRefunds', {})).rows;
}

/** Adyen's notifications are held back (sent to a hook of no one) so a refund stays received. */
function holdNotifications(account: FakeAdyenAccount): void {
  account.fake.notifyTo({ url: receiver.newHook(), username: 'held', password: 'back' });
}

/** Sends the REFUND notification held back to Paywire at last, as Adyen would have. */
async function releaseRefundNotification(account: FakeAdyenAccount): Promise<void> {
  await waitFor('Adyen to have sent the REFUND notification', async () =>
    account.fake.notifications.some((delivery) => delivery.item.eventCode === 'REFUND'),
  );
  const held = account.fake.notifications.find((delivery) => delivery.item.eventCode === 'REFUND');
  account.fake.notifyTo(account.notifyTarget);
  const { merchantAccountCode: _, eventDate: __, ...item } = held?.item ?? ({} as never);
  expect((await account.fake.sendNotification(item)).accepted).toBe(true);
}

/** The Refund IPNs one hook got for one transaction. */
async function refundIpnsAt(hook: string, transactionId: string) {
  return receiver
    .at(hook)
    .filter(
      (ipn) =>
        ipn.params.get('transactionType') === 'REFUND' && ipn.params.get('referenceNumber') === transactionId,
    );
}

describe('pending refunds in the sandbox (amounts ending in .52)', () => {
  it('answers PENDING, lists it, refuses a second refund of it, and cancels it in JSON', async () => {
    const { merchant, hook } = await merchantWithHook();
    const id = await sale(merchant, { amount: 20.52 });
    const refund = expectStatus(
      await api.post(`/transactions/refund/${id}`, { amount: 10.52, reason: 'late' }, as(merchant)),
      200,
    ).body;
    expect(refund).toMatchObject({ transactionId: id, amount: 10.52, refundStatus: 'PENDING' });
    expect(await refundRows(id)).toEqual([
      { id: refund.refundTransactionId, status: 'PENDING', amount_minor: '1052' },
    ]);

    const listed = await pendingReport(merchant);
    expect(listed).toEqual([
      expect.objectContaining({
        ID: refund.refundTransactionId,
        'Invoice ID': id,
        'Refund Amount (Auth. Currency)': '10.52',
        'Auth. Currency': 'USD',
      }),
    ]);

    // What is pending counts against the balance: never refunded twice.
    const beyond = expectStatus(
      await api.post(`/transactions/refund/${id}`, { amount: 10.01 }, as(merchant)),
      400,
    );
    expect(beyond.body.message[0]).toMatchObject({ errorName: 'REFUND_AMOUNT_EXCEEDS_BALANCE', code: 20011 });

    // A refund done at once goes by: its IPN arrives, the pending one's does not.
    expectStatus(await api.post(`/transactions/refund/${id}`, { amount: 1 }, as(merchant)), 200);
    await waitFor(
      'the Refund IPN of the refund done at once',
      async () => (await refundIpnsAt(hook, id)).length === 1,
    );
    expect((await refundIpnsAt(hook, id))[0]?.params.get('invoiceAmount')).toBe('1.00');

    expect(expectStatus(await api.delete(`/transactions/pending-refund/${id}`, as(merchant)), 204).text).toBe(
      '',
    );
    expect((await refundRows(id)).map((row) => row.status)).toEqual(['CANCELLED', 'COMPLETED']);
    expect(await refundedMinor(id)).toBe(100);
    expect(await pendingReport(merchant)).toEqual([]);
    const { rows: audit } = await stack.db.query<{ action: string }>(
      `select action from audit_event where merchant_id = $1 and action = 'refund.cancel'`,
      [merchant.id],
    );
    expect(audit).toHaveLength(1);

    // The cancelled amount is refundable again; nothing pending is left to cancel.
    const again = expectStatus(
      await api.post(`/transactions/refund/${id}`, { amount: 19.52 }, as(merchant)),
      200,
    );
    expect(again.body.refundStatus).toBe('PENDING');
    expectStatus(await api.delete(`/transactions/pending-refund/${id}`, as(merchant)), 204);
    const none = expectStatus(await api.delete(`/transactions/pending-refund/${id}`, as(merchant)), 400);
    expect(none.body.message[0]).toMatchObject({ errorName: 'NO_PENDING_REFUND', code: 20090 });
    expect((await refundIpnsAt(hook, id)).length).toBe(1);
  });

  it('speaks XML: the PENDING refund, the cancellation, and its errors', async () => {
    const { merchant } = await merchantWithHook();
    const id = await sale(merchant, { amount: 30.52 });
    const refund = expectStatus(
      await api.post(`/transactions/refund/${id}`, xmlDocument('refund', {}), {
        ...as(merchant),
        format: 'xml',
        shape: { root: 'refund' },
      }),
      200,
    );
    expect(refund.text).toContain('<refund-status>PENDING</refund-status>');
    expect(refund.body).toMatchObject({ amount: '30.52', refundStatus: 'PENDING' });

    const xml = { ...as(merchant), accept: 'application/xml' };
    expectStatus(await api.delete(`/transactions/pending-refund/${id}`, xml), 204);
    const none = expectStatus(await api.delete(`/transactions/pending-refund/${id}`, xml), 400);
    expect(none.text).toContain('<error-name>NO_PENDING_REFUND</error-name>');
    expect(none.body.message[0]).toMatchObject({ code: '20090' });
  });

  it("refuses unknown, malformed and other merchants' transactions, changing nothing", async () => {
    const { merchant } = await merchantWithHook();
    const stranger = await stack.newMerchant();
    const id = await sale(merchant, { amount: 5.52 });
    expectStatus(await api.post(`/transactions/refund/${id}`, {}, as(merchant)), 200);

    const theirs = expectStatus(await api.delete(`/transactions/pending-refund/${id}`, as(stranger)), 404);
    expect(theirs.body.message[0]).toMatchObject({ errorName: 'TRANSACTION_NOT_FOUND', code: 20001 });
    expectStatus(await api.delete('/transactions/pending-refund/999999999', as(merchant)), 404);
    // An id no transaction can have names none, as for GET /transactions/{id}.
    const malformed = expectStatus(await api.delete('/transactions/pending-refund/abc', as(merchant)), 404);
    expect(malformed.body.message[0]).toMatchObject({ errorName: 'TRANSACTION_NOT_FOUND' });
    expectStatus(await api.delete(`/transactions/pending-refund/${id}`, { merchant: null }), 401);
    // A SEPA debit's refunds are done at once: it has none pending.
    const debit = expectStatus(await api.post('/alt-transactions', sepaDebitBody(), as(merchant)), 200).body;
    const sepa = expectStatus(
      await api.delete(`/transactions/pending-refund/${debit.transactionId}`, as(merchant)),
      400,
    );
    expect(sepa.body.message[0]).toMatchObject({ errorName: 'NO_PENDING_REFUND' });

    expect((await refundRows(id)).map((row) => row.status)).toEqual(['PENDING']);
    expect(await refundedMinor(id)).toBe(552);
    const { rows } = await stack.db.query(
      `select 1 from payment_attempt where transaction_id = $1 and kind = 'RECALL'`,
      [id],
    );
    expect(rows).toEqual([]);
  });
});

describe('a pending refund of a split sale', () => {
  it("gives the vendors' parts back when it is cancelled", async () => {
    const { merchant } = await merchantWithHook();
    const created = expectStatus(await api.post('/vendors', completeVendor(), as(merchant)), 201);
    const vendorId = Number(created.headers.get('location')?.split('/').pop());
    const id = await sale(merchant, { amount: 100.52, vendorInfo: { vendorId } });
    const splits = async () =>
      (
        await stack.db.query<{ refunded: number; parts: number }>(
          `select s.refunded_minor::int as refunded,
                  (select count(*)::int from vendor_refund v join refund r on r.id = v.refund_id
                    where r.transaction_id = s.transaction_id) as parts
             from vendor_split s where s.transaction_id = $1`,
          [id],
        )
      ).rows;
    const refund = expectStatus(await api.post(`/transactions/refund/${id}`, {}, as(merchant)), 200).body;
    expect(refund.refundStatus).toBe('PENDING');
    const [taken] = await splits();
    expect(taken?.refunded).toBeGreaterThan(0);
    expect(taken?.parts).toBe(1);
    expectStatus(await api.delete(`/transactions/pending-refund/${id}`, as(merchant)), 204);
    expect(await splits()).toEqual([{ refunded: 0, parts: 0 }]);
  });
});

describe('pending refunds at Adyen (received, confirmed by notification)', () => {
  it('is PENDING until its REFUND notification, cannot be cancelled there, then completes with its IPN', async () => {
    const { merchant, hook } = await merchantWithHook();
    const account = await fakeAdyenAccount(stack, await operatorOf(stack), merchant, { name: 'pending' });
    fakes.push(account);
    const id = await sale(merchant, { creditCard: adyenTestCard, amount: 40 });
    holdNotifications(account);
    const refund = expectStatus(
      await api.post(`/transactions/refund/${id}`, { amount: 15 }, as(merchant)),
      200,
    );
    expect(refund.body.refundStatus).toBe('PENDING');
    expect((await pendingReport(merchant)).map((row) => row.ID)).toEqual([refund.body.refundTransactionId]);

    const refused = expectStatus(await api.delete(`/transactions/pending-refund/${id}`, as(merchant)), 400);
    expect(refused.body.message[0]).toMatchObject({ errorName: 'REFUND_NOT_CANCELLABLE', code: 20091 });
    expect((await refundRows(id)).map((row) => row.status)).toEqual(['PENDING']);

    await releaseRefundNotification(account);

    await waitFor('the refund to complete', async () => (await refundRows(id))[0]?.status === 'COMPLETED');
    expect(await pendingReport(merchant)).toEqual([]);
    await waitFor('its Refund IPN', async () => (await refundIpnsAt(hook, id)).length === 1);
    const none = expectStatus(await api.delete(`/transactions/pending-refund/${id}`, as(merchant)), 400);
    expect(none.body.message[0]).toMatchObject({ errorName: 'NO_PENDING_REFUND' });
  });
});

describe('a refund that cancels its subscription', () => {
  it('sends CancellationRefund naming the refunded charge', async () => {
    const { merchant, hook } = await merchantWithHook();
    const subscription = await subscribe(api, merchant, await createPlan(api, merchant));
    const { rows } = await stack.db.query<{ id: string }>(
      'select card_transaction_id::text as id from subscription_charge where subscription_id = $1',
      [subscription.subscriptionId],
    );
    const charge = rows[0]?.id ?? '';
    expectStatus(await api.post(`/transactions/refund/${charge}`, {}, as(merchant)), 200);
    await waitFor('the CancellationRefund IPN', async () =>
      receiver.at(hook).some((ipn) => ipn.params.get('transactionType') === 'CANCELLATION_REFUND'),
    );
    const ipn = receiver
      .at(hook)
      .find((sent) => sent.params.get('transactionType') === 'CANCELLATION_REFUND');
    expect(Object.fromEntries(ipn?.params ?? [])).toMatchObject({
      subscriptionId: String(subscription.subscriptionId),
      originalRefNum: charge,
      cancelReason: 'REFUND',
    });
  });
});

describe('a pending refund of a subscription charge', () => {
  const subscriptionOf = async (id: number) =>
    (await stack.db.query<{ status: string }>('select status from subscription where id = $1', [id])).rows[0]
      ?.status;
  const firstCharge = async (id: number) =>
    (
      await stack.db.query<{ id: string }>(
        'select card_transaction_id::text as id from subscription_charge where subscription_id = $1',
        [id],
      )
    ).rows[0]?.id ?? '';

  it('cancels nothing while pending, and nothing once cancelled (sandbox)', async () => {
    const { merchant, hook } = await merchantWithHook();
    const plan = await createPlan(api, merchant, { recurringChargeAmount: 10.52 });
    const { subscriptionId } = await subscribe(api, merchant, plan);
    const charge = await firstCharge(subscriptionId);
    const refund = expectStatus(await api.post(`/transactions/refund/${charge}`, {}, as(merchant)), 200);
    expect(refund.body.refundStatus).toBe('PENDING');
    expect(await subscriptionOf(subscriptionId)).toBe('ACTIVE');
    expectStatus(await api.delete(`/transactions/pending-refund/${charge}`, as(merchant)), 204);
    expect(await subscriptionOf(subscriptionId)).toBe('ACTIVE');
    // A later refund done at once proves the hook gets what was sent: still no CancellationRefund before it.
    expectStatus(await api.post(`/transactions/refund/${charge}`, { amount: 1 }, as(merchant)), 200);
    await waitFor('the refund done at once to cancel it', async () =>
      receiver.at(hook).some((ipn) => ipn.params.get('transactionType') === 'CANCELLATION_REFUND'),
    );
    expect(
      receiver.at(hook).filter((ipn) => ipn.params.get('transactionType') === 'CANCELLATION_REFUND'),
    ).toHaveLength(1);
    expect(await subscriptionOf(subscriptionId)).toBe('CANCELED');
  });

  it("cancels the subscription when Adyen's notification completes the refund", async () => {
    const { merchant, hook } = await merchantWithHook();
    const account = await fakeAdyenAccount(stack, await operatorOf(stack), merchant, {
      name: 'subscription',
    });
    fakes.push(account);
    const { subscriptionId } = await subscribe(api, merchant, await createPlan(api, merchant), {
      paymentSource: { creditCardInfo: { creditCard: adyenTestCard } },
    });
    const charge = await firstCharge(subscriptionId);
    holdNotifications(account);
    const refund = expectStatus(await api.post(`/transactions/refund/${charge}`, {}, as(merchant)), 200);
    expect(refund.body.refundStatus).toBe('PENDING');
    expect(await subscriptionOf(subscriptionId)).toBe('ACTIVE');
    await releaseRefundNotification(account);
    await waitFor(
      'the subscription to be cancelled',
      async () => (await subscriptionOf(subscriptionId)) === 'CANCELED',
    );
    await waitFor('CancellationRefund', async () =>
      receiver.at(hook).some((ipn) => ipn.params.get('transactionType') === 'CANCELLATION_REFUND'),
    );
  });
});

describe('pending refunds whose answer was lost (recovery)', () => {
  let lossy: Stack;
  let lossyApi: ReturnType<typeof client>;

  beforeAll(async () => {
    // The sandbox does each refund, then loses its first answer: the refund's outcome is recovery's to find.
    const sandbox = createSandboxProcessor();
    const lost = new Set<string>();
    lossy = await startStack({
      paymentRecoveryAfterSeconds: 1,
      sandbox: {
        ...sandbox,
        connector: 'sandbox',
        async refund(request) {
          const outcome = await sandbox.refund(request);
          if (lost.has(request.reference)) return outcome;
          lost.add(request.reference);
          throw new ProcessorUnavailable('sandbox: the refund answer was lost', true);
        },
      },
    });
    lossyApi = client(lossy);
  });
  afterAll(async () => {
    await lossy?.close();
  });

  const statuses = async (id: string) =>
    (
      await lossy.db.query<{ status: string }>(
        'select status from refund where transaction_id = $1 order by id',
        [id],
      )
    ).rows.map((row) => row.status);

  it('is pending while being resolved, not cancellable then; recovery completes it or leaves it received', async () => {
    const merchant = lossy.merchant;
    const sold = expectStatus(await lossyApi.post('/transactions', saleBody({ amount: 10 })), 200).body;
    const id = String(sold.transactionId);
    expectStatus(await lossyApi.post(`/transactions/refund/${id}`, { amount: 4 }), 503);
    expect(await statuses(id)).toEqual(['PENDING']);
    const busy = expectStatus(await lossyApi.delete(`/transactions/pending-refund/${id}`), 400);
    expect(busy.body.message[0]).toMatchObject({ errorName: 'REFUND_NOT_CANCELLABLE' });
    await waitFor(
      'recovery to complete the refund',
      async () => (await statuses(id))[0] === 'COMPLETED',
      30_000,
    );
    expect((await fetchReport(lossyApi, merchant, 'PendingRefunds', {})).rows).toEqual([]);

    expectStatus(await lossyApi.post(`/transactions/refund/${id}`, { amount: 1.52 }), 503);
    await waitFor(
      'recovery to find the refund received',
      async () => {
        const { rows } = await lossy.db.query<{ state: string }>(
          `select state from payment_attempt where transaction_id = $1 and kind = 'REFUND' order by id desc limit 1`,
          [id],
        );
        return rows[0]?.state === 'AWAITING';
      },
      30_000,
    );
    expect(await statuses(id)).toEqual(['COMPLETED', 'PENDING']);
    expectStatus(await lossyApi.delete(`/transactions/pending-refund/${id}`), 204);
    expect(await statuses(id)).toEqual(['COMPLETED', 'CANCELLED']);
  });
});
