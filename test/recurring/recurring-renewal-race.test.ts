import { type AuthorizationRequest, createSandboxProcessor } from '@paywire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, client, expectStatus } from '../support/http.ts';
import { createPlan, subscribe } from '../support/recurring.ts';
import { type Stack, startStack } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

// ---------------------------------------------------------------------------------------------------------
// A renewal whose subscription changes while its charge is at the acquirer (README, Renewals, dunning and
// reminders): the schedule's move travels with the charge's commit and fails it, so the approved sale is
// rolled back and voided at the acquirer, and the period is not charged.
// ---------------------------------------------------------------------------------------------------------

const sandbox = createSandboxProcessor();
/** While set, an authorization waits for it to be opened; `arrived` tells that one is waiting. */
let gate: { arrived: () => void; open: Promise<void> } | undefined;
let stack: Stack;

beforeAll(async () => {
  stack = await startStack({
    sandbox: {
      ...sandbox,
      async authorize(request: AuthorizationRequest) {
        if (gate) {
          gate.arrived();
          await gate.open;
        }
        return sandbox.authorize(request);
      },
    },
  });
});

afterAll(async () => {
  await stack?.close();
});

describe('a subscription changed during its renewal', () => {
  it('is not charged: the sale rolls back and its authorization is reversed', async () => {
    const api = client(stack);
    const merchant = await stack.newMerchant();
    const subscription = await subscribe(api, merchant, await createPlan(api, merchant));
    const id = Number(subscription.subscriptionId);

    let open = () => {};
    const arrived = new Promise<void>((resolve) => {
      gate = { arrived: resolve, open: new Promise<void>((release) => (open = release)) };
    });
    expectStatus(await api.put('/sandbox/clock', { advanceBy: 'P32D' }, as(merchant)), 200);
    await arrived; // the renewal's attempt is committed and its charge is at the acquirer
    expectStatus(await api.put(`/recurring/subscriptions/${id}`, { status: 'CANCELED' }, as(merchant)), 200);
    gate = undefined;
    open();

    const { rows } = await waitFor('the renewal attempt resolved', async () => {
      const found = await stack.db.query<{ reference: string; state: string }>(
        `select a.reference, a.state from payment_attempt a
         where a.merchant_id = $1 and a.state not in ('PENDING', 'VOIDING') and a.created_at > (
           select max(created_at) from card_transaction where merchant_id = $1)`,
        [merchant.id],
      );
      return found.rows.length > 0 ? found : undefined;
    });
    expect(rows).toHaveLength(1);
    expect(rows[0]?.state).toBe('VOIDED');
    expect(sandbox.book.get(rows[0]?.reference as string)).toMatchObject({ reversed: true });
    expect(stack.logs.some((line) => line.includes('the subscription changed during its renewal'))).toBe(
      true,
    );

    const charges = await stack.db.query(
      `select status from subscription_charge where subscription_id = $1 and period = 1`,
      [id],
    );
    expect(charges.rows.map((row) => row.status)).not.toContain('CHARGED');
    const sales = await stack.db.query(
      'select count(*)::int as n from card_transaction where merchant_id = $1',
      [merchant.id],
    );
    expect(sales.rows[0]?.n).toBe(1); // the initial charge only
    const after = await stack.db.query('select status, charges_made from subscription where id = $1', [id]);
    expect(after.rows[0]).toMatchObject({ status: 'CANCELED', charges_made: 1 }); // the initial charge;
  });
});
