import { z } from 'zod';
import {
  booleanInput,
  checkAmountFitsCurrency,
  currencyInput,
  positiveIntegerInput,
  refuseRepeats,
} from './primitives.ts';

/**
 * Fraud screening (see docs/fraud.md). The original configures its thresholds in its merchant console and
 * publishes no API for them; Paywire's settings resource is ours, its rules named after the console's
 * thresholds, and what a blocked sale answers is the original's 15011 FRAUD_DETECTED with its fraudEvents.
 */

const decimalText = /^\d{1,12}(?:\.\d+)?$/;

/** A limit may be zero (a minimum of nothing), unlike a payment's amount. */
const limitInput = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const text = typeof value === 'number' ? String(value) : value.trim();
  if (!decimalText.test(text)) {
    ctx.addIssue({ code: 'custom', message: 'must be a decimal amount, zero or more' });
    return z.NEVER;
  }
  return text.replace(/^0+(?=\d)/, '');
});

const amountLimitInput = z
  .object({
    currency: currencyInput,
    minAmount: limitInput.optional(),
    maxAmount: limitInput.optional(),
  })
  .superRefine((limit, ctx) => {
    checkAmountFitsCurrency(limit.minAmount, limit.currency, ctx, ['minAmount']);
    checkAmountFitsCurrency(limit.maxAmount, limit.currency, ctx, ['maxAmount']);
    if (limit.minAmount === undefined && limit.maxAmount === undefined)
      ctx.addIssue({ code: 'custom', path: ['maxAmount'], message: 'give minAmount, maxAmount or both' });
    if (
      limit.minAmount !== undefined &&
      limit.maxAmount !== undefined &&
      Number(limit.minAmount) > Number(limit.maxAmount)
    )
      ctx.addIssue({ code: 'custom', path: ['minAmount'], message: 'must not be above maxAmount' });
  });

/** The whole rule set; PUT replaces it, and a rule left out is off. */
export const fraudSettingsInput = z
  .object({
    /** Sales with one card in the last hour (the merchant's clock) beyond which the next is declined. */
    cardHourlyLimit: positiveIntegerInput.optional(),
    /** Sales from one shopper IP address (transactionFraudInfo.shopperIpAddress) in the last hour, likewise. */
    ipAddressHourlyLimit: positiveIntegerInput.optional(),
    /** Per currency: a sale below minAmount or above maxAmount is declined. */
    amountLimits: z.array(amountLimitInput).max(50, 'must hold at most 50 limits').optional(),
    /** Decline a sale whose card was issued in another country than the shopper's IP address is in. */
    countryMismatchDecline: booleanInput.optional(),
  })
  .superRefine((settings, ctx) =>
    refuseRepeats(
      ctx,
      settings.amountLimits,
      { list: 'amountLimits', property: 'currency' },
      (limit) => limit.currency,
      'has a limit already',
    ),
  );
export type FraudSettingsInput = z.output<typeof fraudSettingsInput>;

export interface AmountLimit {
  currency: string;
  minAmount?: number;
  maxAmount?: number;
}

/** The settings as answered: a limit that is off is absent. */
export interface FraudSettings {
  cardHourlyLimit?: number;
  ipAddressHourlyLimit?: number;
  amountLimits: AmountLimit[];
  countryMismatchDecline: boolean;
}

/** The original's fraudEvent: the rule that fired, D for decline, and what it compared. */
export interface FraudEvent {
  fraudEventCode: string;
  fraudEventDecision: 'D';
  fraudEventExpression: string;
}

/** The original's fraudEvents object of a 15011 FRAUD_DETECTED error. */
export interface FraudEvents {
  fraudReferenceId: string;
  fraudEvent: FraudEvent[];
}

/** The original's fraudResultInfo on a screened sale: Y when the shopper's device data was collected. */
export interface FraudResultInfo {
  deviceDataCollector: 'Y' | 'N';
}
