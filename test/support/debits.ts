import { randomBytes } from 'node:crypto';
import { as, type client, expectStatus } from './http.ts';
import type { IpnReceiver } from './ipn-receiver.ts';
import type { Stack, TestMerchant } from './stack.ts';
import { waitFor } from './wait.ts';

/** Bank debits' tests (SEPA, ECP/ACH): a merchant hearing every debit event, and those events. */

/** A new merchant (its own clock) with every debit event (ChargePending, Charge, Decline, Refund) sent to the receiver. */
export async function merchantWithDebitIpn(
  stack: Stack,
  api: ReturnType<typeof client>,
  receiver: IpnReceiver,
): Promise<TestMerchant> {
  const merchant = await stack.newMerchant();
  const config = {
    ipnDestinations: [
      {
        ipnUrl: `${receiver.origin}/ipn/${randomBytes(4).toString('hex')}`,
        sendChargePending: true,
        sendCharge: true,
        sendDecline: true,
        sendRefund: true,
      },
    ],
    ensureNotificationReceipt: false,
    receiveAffiliateNotifications: false,
  };
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
