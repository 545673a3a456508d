import { randomBytes } from 'node:crypto';
import { as, type client, expectStatus } from './http.ts';
import { hookConfig, type IpnReceiver } from './ipn-receiver.ts';
import type { Stack, TestMerchant } from './stack.ts';
import { waitFor } from './wait.ts';

/** Bank debits' tests (SEPA, ECP/ACH): a debit's body, a merchant hearing every debit event, and those events. */

/** An IBAN the sandbox bank collects (docs/conformance.md, SEPA direct debit). */
export const collectedIban = 'DE89370400440532013000';

/** A SEPA debit's POST /alt-transactions body: 10.50 EUR from an IBAN the sandbox collects, unless overridden. */
export function sepaDebitBody(overrides: Record<string, unknown> = {}) {
  return {
    sepaDirectDebitTransaction: { iban: collectedIban },
    payerInfo: { firstName: 'Ada', lastName: 'Lovelace' },
    amount: 10.5,
    currency: 'EUR',
    authorizedByShopper: true,
    ...overrides,
  };
}

/**
 * A new merchant (its own clock) with every debit event (ChargePending, Charge, Decline, Refund) sent to the
 * receiver, and the `more` events named (as the notification config's flags, e.g. `Recurring`).
 */
export async function merchantWithDebitIpn(
  stack: Stack,
  api: ReturnType<typeof client>,
  receiver: IpnReceiver,
  more: string[] = [],
): Promise<TestMerchant> {
  const merchant = await stack.newMerchant();
  const events = ['ChargePending', 'Charge', 'Decline', 'Refund', ...more];
  const config = hookConfig(
    `${receiver.origin}/ipn/${randomBytes(4).toString('hex')}`,
    events.map((event) => `send${event}`),
  );
  expectStatus(await api.post('/notification-config', config, as(merchant)), 200);
  return merchant;
}

/** The IPN with this transactionType and referenceNumber, once delivered. */
export const deliveredIpn = (receiver: IpnReceiver, transactionType: string, referenceNumber: string) =>
  waitFor(
    `${transactionType} ${referenceNumber}`,
    () =>
      receiver.requests.find(
        ({ params }) =>
          params.get('transactionType') === transactionType &&
          params.get('referenceNumber') === referenceNumber,
      )?.params,
  );
