import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChargeFrequency, SubscriptionStatus } from '@paywire/contracts';
import { executeParameterized } from '../db/wire.ts';
import type { SplitTerms } from '../marketplace/splits.ts';
import { type FactsRow, factsOf, type MerchantFacts } from '../merchants/facts.ts';
import type { DebitScheme } from '../sepa/entities.ts';
import { extendLeaseAndRead, leaseDueRenewals, renewalsOfDebits } from './queries.ts';

/**
 * A subscription as the renewal worker reads it: the entity's own fields, names and shapes (the rules of
 * terms.ts and the facts of events.ts take the entity or this alike), read with plain SQL in one statement
 * per batch rather than hydrated by the ORM, plus what only renewal reads (its dunning state, its mandate's
 * scheme, its merchant's facts). The SQL row stays in this module.
 */
export interface RenewingSubscription {
  id: number;
  merchantId: number;
  status: SubscriptionStatus;
  autoRenew: boolean;
  nextPeriod: number;
  nextChargeDate: string | null;
  anchorDate: string;
  anchorPeriod: number;
  chargesMade: number;
  currency: string;
  quantity: number;
  overrideRecurringChargeMinor: number | null;
  softDescriptor: string | null;
  vendorSplit: SplitTerms | null;
  /** The vaulted card it pays with; null when it pays by mandate. */
  cardId: number | null;
  plan: {
    id: number;
    name: string;
    chargeFrequency: ChargeFrequency;
    recurringChargeMinor: number;
    maxNumberOfCharges: number | null;
    gracePeriodDays: number | null;
  };
  shopper: { id: number; firstName: string | null; lastName: string | null };
  sepaMandate: {
    id: number;
    reference: string | null;
    scheme: DebitScheme | null;
    ibanLastFour: string | null;
  } | null;
  /** Dunning: when a declined period is tried again, and since when it has been declined. */
  retryAt: Date | null;
  failedSince: Date | null;
  /** The charge date whose SEPA pre-notification was sent. */
  remindedChargeDate: string | null;
  /** Its merchant's facts (clock offset, IPN settings), read with it. */
  merchantFacts: MerchantFacts;
}

/** The row recurring/queries.ts's renewalColumns read (bigints and timestamps arrive as text). */
interface RenewalRow extends FactsRow {
  id: string;
  merchant_id: number;
  status: SubscriptionStatus;
  auto_renew: boolean;
  next_period: number;
  next_charge_date: string | null;
  anchor_date: string;
  anchor_period: number;
  charges_made: number;
  currency: string;
  quantity: number;
  override_recurring_charge_minor: string | null;
  sepa_mandate_id: string | null;
  retry_at: string | null;
  failed_since: string | null;
  reminded_charge_date: string | null;
  shopper_id: number;
  first_name: string | null;
  last_name: string | null;
  plan_id: string;
  plan_name: string;
  charge_frequency: ChargeFrequency;
  recurring_charge_minor: string;
  max_number_of_charges: number | null;
  grace_period_days: number | null;
  mandate_reference: string | null;
  mandate_scheme: DebitScheme | null;
  iban_last_four: string | null;
  card_id: string | null;
  soft_descriptor: string | null;
  vendor_split: SplitTerms | null;
}

const numberOrNull = (value: string | null) => (value === null ? null : Number(value));
const instantOrNull = (value: string | null) => (value === null ? null : new Date(value));

function renewingOf(row: RenewalRow): RenewingSubscription {
  return {
    id: Number(row.id),
    merchantId: row.merchant_id,
    status: row.status,
    autoRenew: row.auto_renew,
    nextPeriod: row.next_period,
    nextChargeDate: row.next_charge_date,
    anchorDate: row.anchor_date,
    anchorPeriod: row.anchor_period,
    chargesMade: row.charges_made,
    currency: row.currency,
    quantity: row.quantity,
    overrideRecurringChargeMinor: numberOrNull(row.override_recurring_charge_minor),
    softDescriptor: row.soft_descriptor,
    vendorSplit: row.vendor_split,
    cardId: numberOrNull(row.card_id),
    plan: {
      id: Number(row.plan_id),
      name: row.plan_name,
      chargeFrequency: row.charge_frequency,
      recurringChargeMinor: Number(row.recurring_charge_minor),
      maxNumberOfCharges: row.max_number_of_charges,
      gracePeriodDays: row.grace_period_days,
    },
    shopper: { id: row.shopper_id, firstName: row.first_name, lastName: row.last_name },
    sepaMandate:
      row.sepa_mandate_id === null
        ? null
        : {
            id: Number(row.sepa_mandate_id),
            reference: row.mandate_reference,
            scheme: row.mandate_scheme,
            ibanLastFour: row.iban_last_four,
          },
    retryAt: instantOrNull(row.retry_at),
    failedSince: instantOrNull(row.failed_since),
    remindedChargeDate: row.reminded_charge_date,
    merchantFacts: factsOf(row),
  };
}

/**
 * Leases up to `limit` subscriptions with something due by their merchant's clock (core's `now`, not the
 * database's, as everywhere in the domain), skipping `passed`, for `leaseSeconds`; reads them.
 */
export async function leaseDue(
  em: EntityManager,
  now: Date,
  live: boolean,
  limit: number,
  leaseSeconds: number,
  passed: number[],
): Promise<RenewingSubscription[]> {
  const rows = await em.transactional((tx) =>
    executeParameterized<RenewalRow>(tx, leaseDueRenewals, [
      now,
      live,
      limit,
      leaseSeconds,
      JSON.stringify(passed),
    ]),
  );
  return rows.map(renewingOf);
}

/** Reads the subscription and extends the worker's lease on it (the read sees the row as it was). */
export async function readLeased(
  em: EntityManager,
  id: number,
  leaseSeconds: number,
): Promise<RenewingSubscription | undefined> {
  const [row] = await executeParameterized<RenewalRow>(em, extendLeaseAndRead, [id, leaseSeconds]);
  return row && renewingOf(row);
}

/** The subscriptions the SEPA debits in `debitIds` renew, by debit id. */
export async function renewedByDebits(
  em: EntityManager,
  debitIds: string[],
): Promise<Map<string, RenewingSubscription>> {
  const rows = await executeParameterized<RenewalRow & { sepa_debit_id: string }>(em, renewalsOfDebits, [
    JSON.stringify(debitIds),
  ]);
  return new Map(rows.map((row) => [String(row.sepa_debit_id), renewingOf(row)]));
}
