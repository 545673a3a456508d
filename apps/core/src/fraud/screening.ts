import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FraudEvents, FraudResultInfo } from '@paywire/contracts';
import type { MerchantContext } from '../context.ts';
import { executePrepared, sendWithNext } from '../db/wire.ts';
import { type EventParameters, ReportedFailure } from '../ipn/events.ts';
import { lockScreening, recentScreenings, recordScreening } from './queries.ts';
import { brokenRules, countsSales, type FraudRules } from './rules.ts';

const hourMs = 3_600_000;

/** A sale the merchant's fraud rules declined: the original's 15011 with its fraudEvents, and FraudDecline. */
export class FraudDeclined extends ReportedFailure {
  readonly fraudEvents: FraudEvents;

  constructor(fraudEvents: FraudEvents, parameters: EventParameters) {
    super(
      'FRAUD_DETECTED',
      "the request cannot be fulfilled for the current shopper: the merchant's fraud rules declined it",
      'FraudDecline',
      parameters,
    );
    this.fraudEvents = fraudEvents;
  }

  override toMessage() {
    return { ...super.toMessage(), fraudEvents: this.fraudEvents };
  }
}

/** What screening reads of a sale (fraud/rules.ts, ScreenedSale, less the counts it makes itself). */
export interface SaleToScreen {
  amountMinor: number;
  currency: string;
  /**
   * The card's keyed fingerprints under every live fingerprint key, the current one first (it is recorded,
   * any one is counted); none for a wallet token, which velocity does not count.
   */
  cardFingerprints?: [string, ...string[]];
  cardCountry?: string;
  ipAddress?: string;
  /** Whether the shopper's device data was collected (transactionFraudInfo.fraudSessionId). */
  deviceData: boolean;
  /** The merchant's now: the velocity window is the hour before it. */
  now: Date;
}

/**
 * Whether a sale's screening may count sales, so must run in a transaction (before its card is known: a
 * card rule counts every card but a wallet's).
 */
export function screensInTransaction(rules: FraudRules | null, ipAddress: string | undefined): boolean {
  return (
    rules !== null &&
    (rules.cardHourlyLimit !== null || (rules.ipAddressHourlyLimit !== null && ipAddress !== undefined))
  );
}

/**
 * Screens a sale before any processor is asked (the sale's prepare phase): the rules it breaks decline it with
 * `declined`'s IPN parameters; one that passes is counted for the velocity rules, in the prepare's own
 * transaction, so it counts only once its attempt is written. A declined sale is not counted.
 */
export async function screenSale(
  ctx: MerchantContext,
  em: EntityManager,
  rules: FraudRules,
  sale: SaleToScreen,
  declined: () => EventParameters,
): Promise<FraudResultInfo> {
  const counting = countsSales(rules, sale);
  const card = rules.cardHourlyLimit === null ? null : (sale.cardFingerprints ?? null);
  const ip = rules.ipAddressHourlyLimit === null ? null : (sale.ipAddress ?? null);
  const since = new Date(sale.now.getTime() - hourMs);
  let counts = { card_count: 0, ip_count: 0 };
  if (counting) {
    // one lock per fingerprint: a core still on the old fingerprint key waits on the same lock
    const keys = [
      ...(card ?? []).map((fingerprint) => `card:${ctx.merchantId}:${fingerprint}`),
      ...(ip ? [`ip:${ctx.merchantId}:${ip}`] : []),
    ];
    await sendWithNext(em, lockScreening, [keys]);
    const [row] = await executePrepared<typeof counts>(em, recentScreenings, [
      ctx.merchantId,
      card,
      ip,
      since,
    ]);
    if (row) counts = row;
  }
  const ipCountry = sale.ipAddress === undefined ? undefined : ctx.ipCountry(sale.ipAddress);
  const broken = brokenRules(rules, {
    amountMinor: sale.amountMinor,
    currency: sale.currency,
    ...(sale.cardCountry ? { cardCountry: sale.cardCountry } : {}),
    ...(sale.ipAddress ? { ipAddress: sale.ipAddress } : {}),
    ...(ipCountry ? { ipCountry } : {}),
    cardCount: counts.card_count,
    ipCount: counts.ip_count,
  });
  if (broken.length > 0) {
    throw new FraudDeclined({ fraudReferenceId: randomUUID(), fraudEvent: broken }, declined());
  }
  if (counting)
    await sendWithNext(em, recordScreening, [ctx.merchantId, card?.[0] ?? null, ip, sale.now, since]);
  return { deviceDataCollector: sale.deviceData ? 'Y' : 'N' };
}
