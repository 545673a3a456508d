import {
  type FraudEvent,
  type FraudSettings,
  type FraudSettingsInput,
  minorToAmount,
  minorToDecimal,
  toMinorUnits,
} from '@paywire/contracts';

/** A merchant's fraud rules as stored (fraud_settings.rules): money in minor units, a rule off as null. */
export interface FraudRules {
  cardHourlyLimit: number | null;
  ipAddressHourlyLimit: number | null;
  amountLimits: { currency: string; minMinor: number | null; maxMinor: number | null }[];
  countryMismatchDecline: boolean;
}

export function rulesOf(input: FraudSettingsInput): FraudRules {
  return {
    cardHourlyLimit: input.cardHourlyLimit ?? null,
    ipAddressHourlyLimit: input.ipAddressHourlyLimit ?? null,
    amountLimits: (input.amountLimits ?? []).map(({ currency, minAmount, maxAmount }) => ({
      currency,
      minMinor: minAmount === undefined ? null : toMinorUnits(minAmount, currency),
      maxMinor: maxAmount === undefined ? null : toMinorUnits(maxAmount, currency),
    })),
    countryMismatchDecline: input.countryMismatchDecline ?? false,
  };
}

export const noRules: FraudRules = {
  cardHourlyLimit: null,
  ipAddressHourlyLimit: null,
  amountLimits: [],
  countryMismatchDecline: false,
};

/** The settings as answered: a rule that is off is absent. */
export function settingsOf(rules: FraudRules): FraudSettings {
  return {
    ...(rules.cardHourlyLimit === null ? {} : { cardHourlyLimit: rules.cardHourlyLimit }),
    ...(rules.ipAddressHourlyLimit === null ? {} : { ipAddressHourlyLimit: rules.ipAddressHourlyLimit }),
    amountLimits: rules.amountLimits.map(({ currency, minMinor, maxMinor }) => ({
      currency,
      ...(minMinor === null ? {} : { minAmount: minorToAmount(minMinor, currency) }),
      ...(maxMinor === null ? {} : { maxAmount: minorToAmount(maxMinor, currency) }),
    })),
    countryMismatchDecline: rules.countryMismatchDecline,
  };
}

/** Whether a rule counts sales, so screening must count and record them under a lock. */
export function countsSales(
  rules: FraudRules,
  sale: { cardFingerprints?: readonly string[]; ipAddress?: string },
): boolean {
  return (
    (rules.cardHourlyLimit !== null && sale.cardFingerprints !== undefined) ||
    (rules.ipAddressHourlyLimit !== null && sale.ipAddress !== undefined)
  );
}

/** What the rules look at in a sale. Countries are ISO 3166 alpha-2, any case. */
export interface ScreenedSale {
  amountMinor: number;
  currency: string;
  /** The card's issuing country; unknown for a card the issuer ranges do not place. */
  cardCountry?: string;
  ipAddress?: string;
  /** The shopper's IP address's country; unknown when no source places the address. */
  ipCountry?: string;
  /** Sales that passed screening in the last hour with this card, and from this IP address. */
  cardCount: number;
  ipCount: number;
}

const decline = (fraudEventCode: string, fraudEventExpression: string): FraudEvent => ({
  fraudEventCode,
  fraudEventDecision: 'D',
  fraudEventExpression,
});

/**
 * The rules a sale breaks, each as the original's fraud event: the velocity codes are the original's, the
 * amount and country ones ours in its vocabulary (docs/fraud.md). A rule that cannot decide (no IP address,
 * an unplaced country) does not fire.
 */
export function brokenRules(rules: FraudRules, sale: ScreenedSale): FraudEvent[] {
  const events: FraudEvent[] = [];
  if (rules.cardHourlyLimit !== null && sale.cardCount >= rules.cardHourlyLimit)
    events.push(
      decline('cardPtokVelocityDecline', `card_hourly_count ${sale.cardCount} >= ${rules.cardHourlyLimit}`),
    );
  if (
    rules.ipAddressHourlyLimit !== null &&
    sale.ipAddress !== undefined &&
    sale.ipCount >= rules.ipAddressHourlyLimit
  )
    events.push(
      decline('deviceIpVelocityDecline', `ip_hourly_count ${sale.ipCount} >= ${rules.ipAddressHourlyLimit}`),
    );
  const limit = rules.amountLimits.find((candidate) => candidate.currency === sale.currency);
  const shown = (minor: number) => `${minorToDecimal(minor, sale.currency)} ${sale.currency}`;
  if (limit?.maxMinor != null && sale.amountMinor > limit.maxMinor)
    events.push(
      decline(
        'orderTotalAboveMaximumDecline',
        `amount ${shown(sale.amountMinor)} > ${shown(limit.maxMinor)}`,
      ),
    );
  if (limit?.minMinor != null && sale.amountMinor < limit.minMinor)
    events.push(
      decline(
        'orderTotalBelowMinimumDecline',
        `amount ${shown(sale.amountMinor)} < ${shown(limit.minMinor)}`,
      ),
    );
  const [card, ip] = [sale.cardCountry?.toUpperCase(), sale.ipCountry?.toUpperCase()];
  if (rules.countryMismatchDecline && card && ip && card !== ip)
    events.push(
      decline('paymentCountryIpCountryMismatchDecline', `payment_country ${card} != ip_country ${ip}`),
    );
  return events;
}
