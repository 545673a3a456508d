import { z } from 'zod';
import { type EcpAccount, ecpInfoInput } from './ach.ts';
import { creditCardInput } from './card-input.ts';
import { cardBrands } from './cards.ts';
import { currencyInput, optionalText, positiveIntegerInput, text } from './primitives.ts';
import type { SepaDirectDebitInfo } from './sepa.ts';
import type { CardResponse } from './transactions.ts';

/** A billing contact's fields, in the order responses show them. */
export const billingContactFields = [
  'firstName',
  'lastName',
  'address1',
  'address2',
  'city',
  'state',
  'zip',
  'country',
] as const;
export type BillingContact = Partial<Record<(typeof billingContactFields)[number], string>>;

export const billingContactInfoInput = z.object({
  firstName: optionalText(100),
  lastName: optionalText(100),
  address1: optionalText(200),
  address2: optionalText(200),
  city: optionalText(100),
  state: optionalText(50),
  zip: optionalText(20),
  country: optionalText(2),
});

const creditCardInfoFields = {
  billingContactInfo: billingContactInfoInput.optional(),
  creditCard: creditCardInput.optional(),
  pfToken: text(100).optional(),
};

function oneCardSource(source: { creditCard?: unknown; pfToken?: unknown }, ctx: z.RefinementCtx): void {
  if (!source.creditCard === !source.pfToken) {
    ctx.addIssue({
      code: 'custom',
      path: ['creditCard'],
      message: 'send exactly one of creditCard or pfToken',
    });
  }
}

export const creditCardInfoInput = z.object(creditCardInfoFields).superRefine(oneCardSource);

/**
 * A vaulted shopper's update names a card to remove as the original does: `status` D and the card's type and
 * last four digits (docs/conformance.md, Deleting shoppers and cards).
 */
export const removedCardInput = z.object({
  status: z.literal('D', 'must be D (delete the card) or left out'),
  creditCard: z.object({
    cardType: z.enum(cardBrands, `must be one of ${cardBrands.join(', ')}`),
    cardLastFourDigits: z.string().regex(/^\d{4}$/, 'must be 4 digits'),
  }),
});
export type RemovedCard = z.output<typeof removedCardInput>;

/** An update's card: one to add (no status), or one to remove (status D). */
const updatedCardInfoInput = z.discriminatedUnion('status', [
  z.object({ ...creditCardInfoFields, status: z.undefined().optional() }).superRefine(oneCardSource),
  removedCardInput,
]);

export const shopperFields = {
  firstName: optionalText(100),
  lastName: optionalText(100),
  email: z.email('must be an email address').max(200).optional(),
  country: optionalText(2),
  state: optionalText(50),
  city: optionalText(100),
  address: optionalText(200),
  address2: optionalText(200),
  zip: optionalText(20),
  phone: optionalText(40),
  companyName: optionalText(200),
  shopperCurrency: currencyInput.optional(),
  merchantShopperId: optionalText(50),
  softDescriptor: optionalText(20),
  paymentSources: z
    .object({
      creditCardInfo: z.array(creditCardInfoInput).max(20).optional(),
      ecpInfo: ecpInfoInput.optional(),
    })
    .optional(),
};

export const createShopperInput = z.object({
  ...shopperFields,
  firstName: text(100),
  lastName: text(100),
});

export const updateShopperInput = z.object({
  vaultedShopperId: positiveIntegerInput,
  ...shopperFields,
  paymentSources: z
    .object({
      creditCardInfo: z.array(updatedCardInfoInput).max(20).optional(),
      ecpInfo: ecpInfoInput.optional(),
    })
    .optional(),
});
export const shopperIdInput = z.object({ vaultedShopperId: positiveIntegerInput });
export const merchantShopperIdInput = z.object({ merchantShopperId: text(50) });

export type CreateShopperInput = z.input<typeof createShopperInput>;
export type UpdateShopperInput = z.input<typeof updateShopperInput>;
export type ShopperFields = Omit<z.output<typeof updateShopperInput>, 'vaultedShopperId' | 'paymentSources'>;

/** A shopper's plain text fields, in the documented order (responses, storage). */
export const shopperFieldNames = [
  'firstName',
  'lastName',
  'email',
  'country',
  'state',
  'city',
  'address',
  'address2',
  'zip',
  'phone',
  'companyName',
  'shopperCurrency',
  'merchantShopperId',
  'softDescriptor',
] as const satisfies ReadonlyArray<keyof ShopperFields>;
export type ShopperFieldName = (typeof shopperFieldNames)[number];

/** The answer to deleting a vaulted shopper: the original's `{description}` (XML root `message`). */
export interface ShopperDeletion {
  description: string;
}

export interface VaultedShopper extends Partial<Record<keyof ShopperFields, string>> {
  vaultedShopperId: number;
  paymentSources: {
    creditCardInfo: Array<{
      billingContactInfo?: z.output<typeof billingContactInfoInput>;
      creditCard: CardResponse;
    }>;
    /** The shopper's newest ECP account (the original's schema holds one). */
    ecpInfo?: { ecp: EcpAccount };
    sepaDirectDebitInfo?: SepaDirectDebitInfo[];
  };
  lastPaymentInfo?: {
    paymentMethod: 'CC';
    creditCard: Pick<CardResponse, 'cardLastFourDigits' | 'cardType'>;
  };
}
