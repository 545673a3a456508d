import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { currencyExponent, minorToDecimal, type PayoutFrequency, type PayoutInfo } from '@paywire/contracts';
import type { CoreServices } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized } from '../db/wire.ts';
import { ipnDate, recordEvent } from '../ipn/events.ts';
import { workerContextPerMerchant } from '../jobs/context.ts';
import { payoutQueue, startRuns } from '../jobs/queues.ts';
import { type PaymentOperation, runPrepared } from '../payments/pipeline.ts';
import { bindings } from '../security/card-vault.ts';
import type { VendorContact, VendorSecrets } from './entities.ts';
import { type CreditTransfer, pain001 } from './pain001.ts';
import type { PayoutTransfer, TransferOutcome } from './payout-bank.ts';
import { duePeriod, isoDay } from './payout-periods.ts';
import {
  claimDuePayouts,
  insertPayouts,
  lockDueVendors,
  lockSentPayouts,
  recordTransfers,
  setNextPayoutDays,
  vendorBalances,
} from './queries.ts';

/**
 * Payouts: each approved vendor's balance (its split shares, less its refunds and chargebacks, less what was
 * paid out) is paid when its period is due by its merchant's clock, as the reference's frequency, delay and
 * minimal payout amount say. Runs like SEPA settlement (sepa/settlement.ts): one pg-boss job at a time, every
 * minute and whenever a sandbox clock moves, in batches through the payment pipeline:
 * - prepare: in one transaction, lock the vendors whose payout day has come, claim each one's balance as of
 *   its period's end as payout rows (unique per vendor, period and currency: a run repeated or resumed never
 *   claims a period twice), then lease the payouts due (new ones, and refused ones whose retry day came);
 * - call: write the batch's pain.001 file (SEPA payouts) and hand it, with every transfer, to the bank,
 *   outside any transaction;
 * - record: the payouts still leased to this run become PAID or RETRY, with their IPNs, in one transaction.
 * A run that dies between call and record leaves its payouts leased; the next run after the lease presents
 * them again under the same end-to-end ids, which a bank pays once.
 */

/** The reference's default minimal payout amount per payout currency (35.00 in any other). */
const defaultMinimum: Readonly<Record<string, number>> = {
  AUD: 50,
  CAD: 50,
  NZD: 50,
  SGD: 50,
  CZK: 800,
  DKK: 250,
  HKD: 300,
  NOK: 300,
  SEK: 300,
  HUF: 10_000,
  JPY: 3700,
  PLN: 135,
};

/** The least balance paid out in a currency: the vendor's minimalPayoutAmount, else the reference's default. */
export function minimumMinor(payout: PayoutInfo | null, currency: string): number {
  const amount = payout?.minimalPayoutAmount ?? defaultMinimum[currency] ?? 35;
  return Math.round(amount * 10 ** currencyExponent(currency));
}

interface DueVendor {
  id: number;
  merchant_id: number;
  frequency: PayoutFrequency;
  delay: number;
  payout: PayoutInfo | null;
  merchant_now: Date;
}

/** A payout leased to this run, with what its transfer and the file need. */
interface ClaimedPayout {
  id: string;
  merchant_id: number;
  vendor_id: number;
  currency: string;
  amount_minor: number;
  payout_type: string;
  sending_until: string;
  merchant_now: Date;
  sealed_secrets: string | null;
  payout: PayoutInfo | null;
  contact: VendorContact;
  email: string;
  next_payout_on: string | null;
}

const vendorName = (row: Pick<ClaimedPayout, 'contact' | 'email'>) =>
  row.contact.name ?? ([row.contact.firstName, row.contact.lastName].filter(Boolean).join(' ') || row.email);

/**
 * Claims the balances of up to `limit` vendors whose payout day has come (prepare's first step); returns how
 * many vendors it looked at.
 */
async function claimBalances(services: CoreServices, tx: EntityManager, limit: number): Promise<number> {
  const vendors = await executeParameterized<DueVendor>(tx, lockDueVendors, [
    new Date(),
    services.mode === 'live',
    limit,
  ]);
  if (vendors.length === 0) return 0;
  const periods = vendors.map((vendor) => ({
    vendor,
    ...duePeriod(vendor.frequency, vendor.delay, new Date(vendor.merchant_now)),
  }));
  const balances = await executeParameterized<{ vendor_id: number; currency: string; balance_minor: number }>(
    tx,
    vendorBalances,
    [JSON.stringify(periods.map((p) => ({ vendor_id: p.vendor.id, period_end: p.periodEnd })))],
  );
  const byVendor = new Map(periods.map((p) => [p.vendor.id, p]));
  const payouts = balances.flatMap(({ vendor_id, currency, balance_minor }) => {
    const due = byVendor.get(vendor_id);
    if (!due || balance_minor <= 0 || balance_minor < minimumMinor(due.vendor.payout, currency)) return [];
    return [
      {
        merchant_id: due.vendor.merchant_id,
        vendor_id,
        period_end: isoDay(due.periodEnd),
        currency,
        amount_minor: balance_minor,
        payout_type: due.vendor.payout?.payoutType ?? 'SEPA',
        merchant_now: due.vendor.merchant_now,
      },
    ];
  });
  if (payouts.length > 0) await executeParameterized(tx, insertPayouts, [JSON.stringify(payouts)]);
  await executeParameterized(tx, setNextPayoutDays, [
    JSON.stringify(periods.map((p) => ({ vendor_id: p.vendor.id, next_payout_on: isoDay(p.nextPayoutOn) }))),
  ]);
  return vendors.length;
}

/** The run's SEPA payouts as credit transfers: the only place a vendor's IBAN is opened. */
function creditTransfers(services: CoreServices, claimed: ClaimedPayout[]): CreditTransfer[] {
  return claimed
    .filter((row) => row.payout_type === 'SEPA' && row.sealed_secrets !== null)
    .flatMap((row) => {
      const secrets: VendorSecrets = JSON.parse(
        services.vault.open(row.sealed_secrets as string, bindings.vendor(row.merchant_id, row.vendor_id)),
      );
      if (!secrets.iban) return [];
      return [
        {
          reference: String(row.id),
          amountMinor: row.amount_minor,
          currency: row.currency,
          creditorName: row.payout?.nameOnAccount ?? vendorName(row),
          creditorIban: secrets.iban,
          ...(row.payout?.swiftBic ? { creditorBic: row.payout.swiftBic } : {}),
          remittance: row.payout?.paymentReference ?? `Payout ${row.id} for vendor ${row.vendor_id}`,
        },
      ];
    });
}

/** What a batch's prepare claimed: how many vendors it looked at, and the payouts it leased. */
interface Claim {
  vendors: number;
  payouts: ClaimedPayout[];
}

interface PayoutContext extends CoreServices {
  em: EntityManager;
}

function payoutOperation(
  services: CoreServices,
  limit: number,
): PaymentOperation<Claim, Map<string, TransferOutcome>, ClaimedPayout[], PayoutContext> {
  return {
    // Balances and the lease in one transaction of their own, committed before the bank is asked.
    prepare: ({ em }) =>
      inTransaction(em, async (tx) => ({
        vendors: await claimBalances(services, tx, limit),
        payouts: await executeParameterized<ClaimedPayout>(tx, claimDuePayouts, [
          new Date(),
          services.mode === 'live',
          limit,
          // As SEPA settlement's lease: the payments' recovery delay, within which a bank answers.
          services.payments.recoveryAfterSeconds,
        ]),
      })),
    async call(_ctx, { payouts: claimed }) {
      const transfers = creditTransfers(services, claimed);
      const messageId = `PW${randomUUID().replaceAll('-', '')}`;
      const now = new Date();
      const file =
        transfers.length === 0
          ? null
          : {
              name: `${messageId}.pain.001.xml`,
              content: pain001({
                messageId,
                createdAt: now,
                executionDate: isoDay(now),
                debtor: services.payouts.debtor,
                transfers,
              }),
            };
      const sent = new Set(transfers.map((t) => t.reference));
      // A SEPA payout whose vendor lost its IBAN since is not sent: the bank refuses it.
      const orders: PayoutTransfer[] = claimed
        .filter((row) => row.payout_type !== 'SEPA' || sent.has(String(row.id)))
        .map((row) => ({
          reference: String(row.id),
          amountMinor: row.amount_minor,
          currency: row.currency,
          payoutType: row.payout_type,
        }));
      return services.payouts.bank.transfer(file, orders);
    },
    async record(tx, { payouts: claimed }, answers) {
      const held = new Set(
        (
          await executeParameterized<{ id: string }>(tx, lockSentPayouts, [
            JSON.stringify(claimed.map((row) => ({ id: row.id, sending_until: row.sending_until }))),
          ])
        ).map((row) => String(row.id)),
      );
      const recorded = claimed
        .filter((row) => held.has(String(row.id)))
        .map((row) => ({ row, outcome: answers.get(String(row.id)) ?? noAccount }));
      if (recorded.length === 0) return [];
      await executeParameterized(tx, recordTransfers, [
        JSON.stringify(
          recorded.map(({ row, outcome }) => ({
            id: row.id,
            paid: outcome.paid,
            failure: outcome.paid ? null : outcome.reason.slice(0, 100),
            merchant_now: row.merchant_now,
            retry_at: row.next_payout_on ?? row.merchant_now,
          })),
        ),
      ]);
      await reportTransfers(services, tx, recorded);
      return recorded.map(({ row }) => row);
    },
  };
}

const noAccount: TransferOutcome = { paid: false, reason: 'no bank account to pay' };

/**
 * The IPNs: one Payout per vendor paid, its amounts per currency indexed as the reference's amount[N] and
 * currency[N], to the merchant's destinations and the vendor's ipnUrl; one FailedPayoutTransfer per refused
 * transfer, with its amount and currency, to the merchant's.
 */
async function reportTransfers(
  services: CoreServices,
  tx: EntityManager,
  recorded: { row: ClaimedPayout; outcome: TransferOutcome }[],
): Promise<void> {
  const contextOf = workerContextPerMerchant(services, tx);
  const vendorParameters = (row: ClaimedPayout) => ({
    referenceNumber: row.vendor_id,
    vendorId: row.vendor_id,
    vendorName: vendorName(row),
    vendorEmail: row.email,
    transactionDate: ipnDate(new Date(row.merchant_now)),
  });
  const paid = new Map<number, ClaimedPayout[]>();
  for (const { row, outcome } of recorded) {
    if (outcome.paid) {
      paid.set(row.vendor_id, [...(paid.get(row.vendor_id) ?? []), row]);
      continue;
    }
    await recordEvent(contextOf(row.merchant_id), tx, 'FailedPayoutTransfer', {
      ...vendorParameters(row),
      payoutId: row.id,
      amount: minorToDecimal(row.amount_minor, row.currency),
      currency: row.currency,
      payoutType: row.payout_type,
      failureReason: outcome.reason,
    });
  }
  for (const rows of paid.values()) {
    const [first] = rows as [ClaimedPayout];
    // The reference tells the paid vendor too, at its own ipnUrl.
    await recordEvent(
      contextOf(first.merchant_id),
      tx,
      'Payout',
      {
        ...vendorParameters(first),
        payoutIds: rows.map((row) => row.id).join(','),
        payoutType: first.payout_type,
        ...Object.fromEntries(
          rows.flatMap((row, index) => [
            [`amount${index + 1}`, minorToDecimal(row.amount_minor, row.currency)],
            [`currency${index + 1}`, row.currency],
          ]),
        ),
      },
      first.contact.ipnUrl ? [first.contact.ipnUrl] : [],
    );
  }
}

/**
 * Claims up to `limit` due vendors' balances and pays up to `limit` due payouts; returns how many vendors and
 * payouts it took (0: nothing was due).
 */
export async function payoutBatch(services: CoreServices, limit: number): Promise<number> {
  const operation = payoutOperation(services, limit);
  const ctx = { ...services, em: services.orm.em.fork() };
  const claim = await operation.prepare(ctx);
  if (claim.payouts.length > 0) await runPrepared(ctx, operation, claim);
  return claim.vendors + claim.payouts.length;
}

/** Runs batches until one finds nothing due. */
export async function payDue(services: CoreServices, batchSize = 200): Promise<number> {
  let paid = 0;
  for (;;) {
    const count = await payoutBatch(services, batchSize);
    paid += count;
    if (count === 0) return paid;
  }
}

export async function startPayoutWorkers(
  services: CoreServices,
  onError: (error: unknown) => void,
): Promise<void> {
  await startRuns(services.jobs, payoutQueue, 600, () => payDue(services), onError);
}
