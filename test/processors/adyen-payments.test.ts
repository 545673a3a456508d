import { randomUUID } from 'node:crypto';
import type { PaywireClient } from '@paywire/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  adyenTestCard,
  type FakeAdyenAccount,
  fakeAdyenAccount,
  operatorOf,
  standingCharges,
} from '../support/adyen.ts';
import { adyenSpec } from '../support/fake-adyen/spec.ts';
import { as, client, expectStatus, saleBody } from '../support/http.ts';
import { createPlan, subscribe } from '../support/recurring.ts';
import type { Stack, TestMerchant } from '../support/stack.ts';
import { startStack } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';
import { encodeWeb, googlePayWebPaymentData, testMerchantWalletKeys } from '../support/wallet-tokens.ts';

/**
 * Card payments through the Adyen connector, against a fake Adyen built from Adyen's published Checkout v72
 * document that validates every request Paywire sends and every answer it gives; and failover between two
 * Adyen accounts: only when the first cannot have authorized, never a shopper charged twice.
 */
let stack: Stack;
let api: ReturnType<typeof client>;
let operator: PaywireClient;
const fakes: FakeAdyenAccount[] = [];

beforeAll(async () => {
  adyenSpec(); // the fake's validators compile once (seconds): not inside a call Paywire times
  // Each Adyen call gets a quarter of the recovery delay (server.ts): 3 s, which a loaded machine's fake keeps
  // within (at 5 s, 1.25 s calls timed out beside another suite and a sale was voided).
  stack = await startStack({ paymentRecoveryAfterSeconds: 12, adyenTimeoutMs: 3000 });
  api = client(stack);
  operator = await operatorOf(stack);
});
// Every request Paywire sent and every answer the fake gave is valid against Adyen's document.
afterEach(() => {
  for (const account of fakes) account.expectNoViolations();
});
afterAll(async () => {
  for (const account of fakes) await account.fake.close();
  await stack?.close();
});

async function adyenAccount(merchant: TestMerchant, name: string, latencyMs = 0) {
  const account = await fakeAdyenAccount(stack, operator, merchant, { name, latencyMs });
  fakes.push(account);
  return account;
}

/** A merchant whose payments go to `first`, then fail over to `second`. */
async function twoAccounts() {
  const merchant = await stack.newMerchant();
  const first = await adyenAccount(merchant, 'first');
  const second = await adyenAccount(merchant, 'second');
  await operator.processors.route.mutate({
    merchantId: merchant.id,
    rules: [{ account: 'first' }, { account: 'second' }],
  });
  return { merchant, first, second };
}

const adyenSale = (overrides: Record<string, unknown> = {}) =>
  saleBody({ creditCard: adyenTestCard, ...overrides });

async function transactionRow(id: string) {
  const { rows } = await stack.db.query<{ processor_account_id: number; processor_reference: string }>(
    'select processor_account_id, processor_reference from card_transaction where id = $1',
    [id],
  );
  return rows[0];
}

async function attempts(transactionId: string) {
  const { rows } = await stack.db.query<{ kind: string; state: string; reference: string }>(
    'select kind, state, reference::text from payment_attempt where transaction_id = $1 order by id',
    [transactionId],
  );
  return rows;
}

describe('the Adyen connector', () => {
  it('sells, captures, refunds and reverses; Adyen confirms modifications later, its book matches', async () => {
    const merchant = await stack.newMerchant();
    const adyen = await adyenAccount(merchant, 'main');
    const sale = expectStatus(await api.post('/transactions', adyenSale(), as(merchant)), 200).body;
    const row = await transactionRow(sale.transactionId);
    expect(row?.processor_account_id).toBe(adyen.accountId);
    const sold = adyen.fake.book.get(row?.processor_reference ?? '');
    expect(sold).toMatchObject({ authorisedMinor: 2550, capturedMinor: 2550, currency: 'USD' });
    expect(sale.processingInfo).toMatchObject({ processingStatus: 'success', cvvResponseCode: 'MA' });

    const auth = expectStatus(
      await api.post(
        '/transactions',
        adyenSale({ cardTransactionType: 'AUTH_ONLY', amount: 40 }),
        as(merchant),
      ),
      200,
    ).body;
    const authorized = adyen.fake.book.get(
      (await transactionRow(auth.transactionId))?.processor_reference ?? '',
    );
    expect(authorized).toMatchObject({ authorisedMinor: 4000, capturedMinor: 0 });
    expectStatus(
      await api.put(
        '/transactions',
        { cardTransactionType: 'CAPTURE', transactionId: auth.transactionId, amount: 30 },
        as(merchant),
      ),
      200,
    );
    expect(authorized?.capturedMinor).toBe(3000);
    expectStatus(
      await api.post(`/transactions/refund/${auth.transactionId}`, { amount: 10 }, as(merchant)),
      200,
    );
    expect(authorized?.refundedMinor).toBe(1000);
    // Adyen answers modifications "received"; its signed notifications confirm them (AWAITING -> DONE)
    await waitFor('Adyen to confirm the capture and the refund', async () => {
      const states = (await attempts(auth.transactionId)).map((a) => [a.kind, a.state]);
      return (
        JSON.stringify(states) ===
        JSON.stringify([
          ['AUTHORIZE', 'DONE'],
          ['CAPTURE', 'DONE'],
          ['REFUND', 'DONE'],
        ])
      );
    });
    const { rows: inbox } = await stack.db.query<{ event_code: string }>(
      'select event_code from processor_notification where account_id = $1 and processed_at is not null',
      [adyen.accountId],
    );
    expect(inbox.map((row) => row.event_code)).toEqual(expect.arrayContaining(['CAPTURE', 'REFUND']));

    const reversed = expectStatus(
      await api.post('/transactions', adyenSale({ cardTransactionType: 'AUTH_ONLY' }), as(merchant)),
      200,
    ).body;
    expectStatus(
      await api.put(
        '/transactions',
        { cardTransactionType: 'AUTH_REVERSAL', transactionId: reversed.transactionId },
        as(merchant),
      ),
      200,
    );
    expect(
      adyen.fake.book.get((await transactionRow(reversed.transactionId))?.processor_reference ?? ''),
    ).toMatchObject({ cancelled: true });
    // every request carried the attempt's reference as its idempotency key
    for (const request of adyen.fake.requests) expect(request.idempotencyKey).toMatch(/^[0-9a-f-]{36}/);
  });

  it("maps Adyen's refusals to the interface's decline errors and writes no sale", async () => {
    const merchant = await stack.newMerchant();
    const adyen = await adyenAccount(merchant, 'declines');
    for (const [holder, errorName] of [
      ['NOT_ENOUGH_BALANCE', 'INSUFFICIENT_FUNDS'],
      ['CARD_EXPIRED', 'EXPIRED_CARD'],
      ['CVC_DECLINED', 'CVV_ERROR'],
      ['DECLINED', 'DO_NOT_HONOR'],
    ]) {
      const reply = await api.post(
        '/transactions',
        adyenSale({ cardHolderInfo: { firstName: holder, zip: '02139' } }),
        as(merchant),
      );
      expectStatus(reply, 400);
      expect(reply.body.message[0]).toMatchObject({ errorName, code: 14002 });
    }
    const { rows } = await stack.db.query('select 1 from card_transaction where merchant_id = $1', [
      merchant.id,
    ]);
    expect(rows).toHaveLength(0);
    expect(standingCharges(adyen.fake)).toHaveLength(0);
  });

  it('a keyed retry while Adyen is answering is 409; afterwards the same bytes, one authorisation', async () => {
    const merchant = await stack.newMerchant();
    const adyen = await adyenAccount(merchant, 'slow', 300);
    const key = { headers: { 'idempotency-key': randomUUID() } };
    const first = api.post('/transactions', adyenSale(), as(merchant, key));
    await waitFor('the authorisation to reach Adyen', async () => adyen.fake.requests.length > 0);
    expectStatus(await api.post('/transactions', adyenSale(), as(merchant, key)), 409);
    const answer = expectStatus(await first, 200);
    expect(expectStatus(await api.post('/transactions', adyenSale(), as(merchant, key)), 200).text).toBe(
      answer.text,
    );
    expect(standingCharges(adyen.fake)).toHaveLength(1);
  });
});

describe('the Adyen connector under the payment path', () => {
  it('captures, reversals and refunds racing on one authorization never exceed it, here or at Adyen', async () => {
    const merchant = await stack.newMerchant();
    const adyen = await adyenAccount(merchant, 'races');
    for (let round = 0; round < 3; round++) {
      const { transactionId } = expectStatus(
        await api.post(
          '/transactions',
          adyenSale({ cardTransactionType: 'AUTH_ONLY', amount: 10 }),
          as(merchant),
        ),
        200,
      ).body;
      const replies = await Promise.all([
        api.put('/transactions', { cardTransactionType: 'CAPTURE', transactionId, amount: 10 }, as(merchant)),
        api.put('/transactions', { cardTransactionType: 'CAPTURE', transactionId, amount: 6 }, as(merchant)),
        api.put('/transactions', { cardTransactionType: 'AUTH_REVERSAL', transactionId }, as(merchant)),
        api.post(`/transactions/refund/${transactionId}`, { amount: 6 }, as(merchant)),
        api.post(`/transactions/refund/${transactionId}`, { amount: 6 }, as(merchant)),
      ]);
      for (const reply of replies) expect([200, 400], reply.text).toContain(reply.status);
      await waitFor('Adyen to confirm every change', async () =>
        (await attempts(transactionId)).every((attempt) => attempt.state === 'DONE'),
      );
      const { rows } = await stack.db.query<{
        status: string;
        captured: string;
        refunded: string;
        psp: string;
      }>(
        `select status, captured_minor as captured, refunded_minor as refunded, processor_reference as psp
           from card_transaction where id = $1`,
        [transactionId],
      );
      const ours = rows[0];
      const theirs = adyen.fake.book.get(ours?.psp ?? '');
      if (!ours || !theirs) throw new Error('the transaction is missing on one side');
      expect(Number(ours.captured)).toBeLessThanOrEqual(1000);
      expect(theirs.capturedMinor).toBe(Number(ours.captured));
      expect(theirs.refundedMinor).toBe(Number(ours.refunded));
      expect(theirs.cancelled).toBe(ours.status === 'REVERSED');
    }
  });

  it("renews a card subscription through the merchant's Adyen account", async () => {
    const merchant = await stack.newMerchant();
    const adyen = await adyenAccount(merchant, 'renewals');
    const subscription = await subscribe(api, merchant, await createPlan(api, merchant), {
      paymentSource: { creditCardInfo: { creditCard: adyenTestCard } },
    });
    expect(standingCharges(adyen.fake).map((payment) => payment.capturedMinor)).toEqual([999]);
    expectStatus(await api.put('/sandbox/clock', { advanceBy: 'P31D' }, as(merchant)), 200);
    // The period is charged once Paywire has recorded it (Adyen books the authorisation before it answers)
    const rows = await waitFor(
      'the renewal to be charged',
      async () => {
        const { rows } = await stack.db.query<{ psp: string }>(
          `select t.processor_reference as psp from subscription_charge c
             join card_transaction t on t.id = c.card_transaction_id
            where c.subscription_id = $1 and c.status = 'CHARGED' order by c.period`,
          [subscription.subscriptionId],
        );
        return rows.length === 2 && rows;
      },
      30_000,
    );
    expect(rows.map((row) => row.psp).sort()).toEqual(
      standingCharges(adyen.fake)
        .map((p) => p.pspReference)
        .sort(),
    );
  });

  it("charges a production Google Pay token's network token and cryptogram, which Paywire decrypted, at Adyen", async () => {
    const merchant = await stack.newMerchant();
    const adyen = await adyenAccount(merchant, 'wallet');
    await operator.wallets.configureKeys.mutate(testMerchantWalletKeys(merchant.id));
    const paymentData = googlePayWebPaymentData({
      environment: 'PRODUCTION',
      cardDetails: '1111',
      tokenOptions: { pan: adyenTestCard.cardNumber, authMethod: 'CRYPTOGRAM_3DS' },
    });
    const reply = await api.post(
      '/transactions',
      {
        cardTransactionType: 'AUTH_CAPTURE',
        amount: 42.1,
        currency: 'USD',
        wallet: { walletType: 'GOOGLE_PAY', encodedPaymentToken: encodeWeb(paymentData) },
      },
      as(merchant),
    );
    expectStatus(reply, 200);
    const sent = adyen.fake.requests.find((request) => request.path.endsWith('/payments'))?.body as {
      paymentMethod: Record<string, string>;
      mpiData?: Record<string, string>;
    };
    expect(sent.paymentMethod).toEqual({
      type: 'networkToken',
      number: adyenTestCard.cardNumber,
      expiryMonth: expect.stringMatching(/^\d{2}$/),
      expiryYear: expect.stringMatching(/^\d{4}$/),
    });
    expect(sent.mpiData).toEqual({
      tokenAuthenticationVerificationValue: expect.any(String),
      eci: expect.any(String),
    });
    // The sealed token never leaves Paywire: only the key holder could open it.
    expect(JSON.stringify(sent)).not.toContain(
      paymentData.paymentMethodData.tokenizationData.token.slice(0, 40),
    );
    expect(
      adyen.fake.byReference((await attempts(reply.body.transactionId))[0]?.reference ?? ''),
    ).toBeDefined();
  });

  it('a 3-D Secure reference Adyen cannot take: 400, refused before it is sent, nothing left pending', async () => {
    const merchant = await stack.newMerchant();
    const adyen = await adyenAccount(merchant, 'mpi');
    const reply = await api.post(
      '/transactions',
      adyenSale({ threeDSecure: { threeDSecureReferenceId: '1234' } }),
      as(merchant),
    );
    expectStatus(reply, 400);
    expect(reply.body.message[0]).toMatchObject({ errorName: 'NO_PROCESSOR_ACCOUNT', code: 20061 });
    expect(reply.body.message[0].description).toMatch(/external MPI result/);
    expect(adyen.fake.requests).toHaveLength(0);
    const { rows } = await stack.db.query<{ state: string }>(
      'select state from payment_attempt where merchant_id = $1',
      [merchant.id],
    );
    expect(rows.map((row) => row.state)).toEqual(['VOIDED']);
  });

  it('a merchantTransactionId used already is refused before Adyen is asked: no authorization to undo', async () => {
    const merchant = await stack.newMerchant();
    const adyen = await adyenAccount(merchant, 'orders');
    const order = { merchantTransactionId: `order-${randomUUID()}` };
    expectStatus(await api.post('/transactions', adyenSale(order), as(merchant)), 200);
    const again = await api.post('/transactions', adyenSale(order), as(merchant));
    expectStatus(again, 400);
    expect(again.body.message[0]).toMatchObject({
      errorName: 'VALIDATION_GENERAL_FAILURE',
      description: 'merchantTransactionId: is already used by another transaction',
    });
    expect(adyen.fake.requests.filter((request) => request.path.endsWith('/payments'))).toHaveLength(1);
    const { rows } = await stack.db.query('select 1 from payment_attempt where merchant_id = $1', [
      merchant.id,
    ]);
    expect(rows).toHaveLength(1);
  });

  it('a payment in a currency no account of the merchant takes is refused, nothing written', async () => {
    const merchant = await stack.newMerchant();
    fakes.push(await fakeAdyenAccount(stack, operator, merchant, { name: 'euro', currencies: ['EUR'] }));
    const reply = await api.post('/transactions', adyenSale({ currency: 'USD' }), as(merchant));
    expectStatus(reply, 400);
    expect(reply.body.message[0]).toMatchObject({ errorName: 'NO_PROCESSOR_ACCOUNT', code: 20061 });
    const { rows } = await stack.db.query('select 1 from payment_attempt where merchant_id = $1', [
      merchant.id,
    ]);
    expect(rows).toHaveLength(0);
  });
});

describe('failover between accounts', () => {
  it('the first account refuses connections: the sale is made on the second at once', async () => {
    const { merchant, first, second } = await twoAccounts();
    await first.fake.close();
    const sale = expectStatus(await api.post('/transactions', adyenSale(), as(merchant)), 200).body;
    expect((await transactionRow(sale.transactionId))?.processor_account_id).toBe(second.accountId);
    expect(standingCharges(second.fake)).toHaveLength(1);
  });

  for (const kind of ['timeout', 'error500'] as const) {
    it(`the first account ${kind === 'timeout' ? 'times out' : 'answers 500'} before authorizing: technically cancelled, then charged once on the second`, async () => {
      const { merchant, first, second } = await twoAccounts();
      first.fake.fault({ path: 'payments', kind, times: 2 }); // the call and its repeat under the same key
      const sale = expectStatus(await api.post('/transactions', adyenSale(), as(merchant)), 200).body;
      const row = await transactionRow(sale.transactionId);
      expect(row?.processor_account_id).toBe(second.accountId);
      const [attempt] = await attempts(sale.transactionId);
      // the first was asked to cancel whatever it did under the attempt's reference before the second was asked
      const cancel = first.fake.requests.find((request) => request.path.endsWith('/cancels'));
      expect(cancel?.body).toMatchObject({ paymentReference: attempt?.reference });
      expect(standingCharges(first.fake)).toHaveLength(0);
      expect(standingCharges(second.fake)).toHaveLength(1);
    });
  }

  it('the first account approves but the answer is lost: the repeat under the same key gets it, one charge', async () => {
    const { merchant, first, second } = await twoAccounts();
    first.fake.fault({ path: 'payments', kind: 'approve-then-drop' });
    const sale = expectStatus(await api.post('/transactions', adyenSale(), as(merchant)), 200).body;
    expect(standingCharges(first.fake)).toHaveLength(1);
    expect(second.fake.requests).toHaveLength(0);
    const row = await transactionRow(sale.transactionId);
    expect(row?.processor_account_id).toBe(first.accountId);
    expect(standingCharges(first.fake)[0]?.pspReference).toBe(row?.processor_reference);
  });

  it('an authorization approved by the first whose answers are both lost: technically cancelled once Adyen confirms it, the second charges once', async () => {
    const { merchant, first, second } = await twoAccounts();
    first.fake.fault({ path: 'payments', kind: 'approve-then-drop', times: 2 });
    const authorization = expectStatus(
      await api.post('/transactions', adyenSale({ cardTransactionType: 'AUTH_ONLY' }), as(merchant)),
      200,
    ).body;
    expect([...first.fake.book.values()]).toHaveLength(1); // it did authorise
    expect(standingCharges(first.fake)).toHaveLength(0); // and was technically cancelled
    expect(standingCharges(second.fake)).toHaveLength(1);
    expect((await transactionRow(authorization.transactionId))?.processor_account_id).toBe(second.accountId);
  });

  it('a sale the first captured whose answers are both lost: Adyen refuses the technical cancel, so no failover; 503 while its outcome is resolved, then recovery refunds it by its pspReference', async () => {
    const { merchant, first, second } = await twoAccounts();
    first.fake.fault({ path: 'payments', kind: 'approve-then-drop', times: 2 });
    const reply = await api.post('/transactions', adyenSale(), as(merchant));
    expectStatus(reply, 503);
    expect(reply.body.message[0].description).toMatch(/being resolved/);
    expect(standingCharges(first.fake)).toHaveLength(1); // the one charge, for recovery and the operator
    expect(second.fake.requests).toHaveLength(0); // never a second
    const { rows } = await stack.db.query<{ state: string; processor_account_id: number }>(
      'select state, processor_account_id from payment_attempt where merchant_id = $1',
      [merchant.id],
    );
    expect(rows).toEqual([{ state: 'PENDING', processor_account_id: first.accountId }]);
    await waitFor("the refusal in core's log", () =>
      stack.logs.some((line) => line.includes('Adyen refused a technical cancel')),
    );
    // Recovery then reverses the sale by the pspReference of Adyen's AUTHORISATION notification (refunded: it
    // was captured), where a technical cancel would be refused again on every run and the attempt stay open.
    await waitFor(
      'recovery to void the attempt',
      async () => {
        const { rows: after } = await stack.db.query<{ state: string }>(
          'select state from payment_attempt where merchant_id = $1',
          [merchant.id],
        );
        return after[0]?.state === 'VOIDED';
      },
      50_000, // recovery runs every 12 s and takes attempts 12 s after their call
    );
    expect(standingCharges(first.fake)).toHaveLength(0);
    expect(second.fake.requests).toHaveLength(0);
  });

  it('Adyen refusing a technical cancel is logged for an operator, with its pspReference', async () => {
    const { first } = await twoAccounts();
    const delivery = await first.fake.sendNotification({
      pspReference: 'TC00000000000001',
      merchantReference: randomUUID(),
      amount: { currency: 'USD', value: 2550 },
      eventCode: 'TECHNICAL_CANCEL',
      success: 'false',
      reason: 'Payment has been captured',
    });
    expect(delivery.accepted).toBe(true);
    await waitFor("the refusal in core's log", () =>
      stack.logs.some(
        (line) => line.includes('Adyen refused a technical cancel') && line.includes('TC00000000000001'),
      ),
    );
  });

  it('a decline is final: the second account is never asked', async () => {
    const { merchant, second } = await twoAccounts();
    const reply = await api.post(
      '/transactions',
      adyenSale({ cardHolderInfo: { firstName: 'DECLINED' } }),
      as(merchant),
    );
    expectStatus(reply, 400);
    expect(second.fake.requests).toHaveLength(0);
  });

  it('neither account takes the payment: 503 at once, nothing charged, the key free for a retry', async () => {
    const { merchant, first, second } = await twoAccounts();
    first.fake.fault({ path: 'payments', kind: 'timeout', times: 2 });
    second.fake.fault({ path: 'payments', kind: 'error500', times: 2 });
    const key = { headers: { 'idempotency-key': randomUUID() } };
    const refused = expectStatus(await api.post('/transactions', adyenSale(), as(merchant, key)), 503);
    expect(refused.body.message[0].description).toMatch(/nothing was charged/);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(standingCharges(first.fake)).toHaveLength(0);
    expect(standingCharges(second.fake)).toHaveLength(0);
    // both were technically cancelled, so the attempt is over: the retry pays, once
    const paid = expectStatus(await api.post('/transactions', adyenSale(), as(merchant, key)), 200).body;
    expect((await transactionRow(paid.transactionId))?.processor_account_id).toBe(first.accountId);
    expect(standingCharges(first.fake)).toHaveLength(1);
    expect(standingCharges(second.fake)).toHaveLength(0);
  });
});
