import { z } from 'zod';
import { cardNumberInput, securityCodeInput } from './card-input.ts';
import { brandOf, securityCodeLength } from './cards.ts';
import { text } from './primitives.ts';

/** Hosted payment fields: the shopper's browser binds card data to a token with the token as credential. */
const expDateInput = z
  .string()
  .trim()
  .regex(/^(0[1-9]|1[0-2])\/\d{4}$/, 'must be MM/YYYY');

export const bindTokenInput = z
  .object({
    token: text(100),
    ccNumber: cardNumberInput,
    cvv: securityCodeInput,
    expDate: expDateInput,
  })
  .superRefine((card, ctx) => {
    const expected = securityCodeLength(brandOf(card.ccNumber));
    if (card.cvv.length !== expected) {
      ctx.addIssue({ code: 'custom', path: ['cvv'], message: `must be ${expected} digits for this card` });
    }
  });

export type BindTokenInput = z.input<typeof bindTokenInput>;

/**
 * POST /payment-fields-tokens/prefill: the merchant's server puts a card it holds (a returning shopper's, for a
 * 3-D Secure flow in the hosted fields) on a new token. No security code: a saved card has none.
 */
export const prefillTokenInput = z.object({ ccNumber: cardNumberInput, expDate: expDateInput });
export type PrefillTokenInput = z.output<typeof prefillTokenInput>;

/** The hosted fields page opening for a token, framed by the page at `origin` (none: not framed). */
export const formOpeningInput = z.object({ token: text(100), origin: text(200).optional() });

/**
 * Whether the form may be shown: the token is known, unused and unexpired, and the first origin that
 * framed its form is this one.
 */
export interface TokenState {
  usable: boolean;
}

export interface BoundToken {
  ccType: string;
  last4Digits: string;
  issuingCountry: string;
}

export const tokenLifetimeMinutes = 60;
