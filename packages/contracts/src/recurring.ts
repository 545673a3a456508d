import { z } from 'zod';
import { checkEcpAccount, type EcpAccount, ecpTransactionInput } from './ach.ts';
import {
  amountInput,
  booleanInput,
  checkAmountFitsCurrency,
  currencyInput,
  optionalText,
  positiveIntegerInput,
  text,
} from './primitives.ts';
import { sepaDirectDebitTransactionInput } from './sepa.ts';
import {
  type BillingContact,
  billingContactInfoInput,
  creditCardInfoInput,
  shopperFields,
} from './shoppers.ts';
import { transactionMetaDataInput } from './transaction-details.ts';
import { type CardResponse, merchantTransactionIdInput, softDescriptorInput } from './transactions.ts';
import { checkSplitForm, type SplitShown, splitInputs } from './vendor-split.ts';

/**
 * Recurring billing as the original's JSON API documents it: plans, plan-based subscriptions and
 * merchant-managed (ondemand) subscriptions, their charges, and the Extended API's subscription charge.
 */

export const chargeFrequencies = [
  'ONCE',
  'DAILY',
  'WEEKLY',
  'EVERY 2 WEEKS',
  'MONTHLY',
  'EVERY 2 MONTHS',
  'QUARTERLY',
  'EVERY 6 MONTHS',
  'ANNUALLY',
  'EVERY 2 YEARS',
  'EVERY 3 YEARS',
] as const;
export type ChargeFrequency = (typeof chargeFrequencies)[number];

export const planStatuses = ['ACTIVE', 'INACTIVE'] as const;
export type PlanStatus = (typeof planStatuses)[number];
export const subscriptionStatuses = ['ACTIVE', 'CANCELED', 'SUSPENDED', 'FINISHED'] as const;
export type SubscriptionStatus = (typeof subscriptionStatuses)[number];

/** Bounds of ours where the reference names none: a trial of at most two years, grace of at most 30 days. */
export const maxTrialPeriodDays = 730;
export const maxGracePeriodDays = 30;
export const maxChargesLimit = 10_000;
export const maxSubscriptionQuantity = 100_000;

/** A number, or a string of a whole number, read as a number (its range checked by the caller). */
const numberInput = z
  .union([
    z.number(),
    z
      .string()
      .trim()
      .regex(/^-?\d{1,9}$/, 'must be a whole number'),
  ])
  .transform(Number);

const wholeNumber = (min: number, max: number) =>
  numberInput.pipe(
    z
      .number()
      .int('must be a whole number')
      .min(min, `must be at least ${min}`)
      .max(max, `must be at most ${max}`),
  );

/** An amount that may be zero (an initial charge of 0: nothing is charged at creation). */
const zeroOrMoreAmountInput = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const decimal = typeof value === 'number' ? String(value) : value.trim();
  if (!/^\d{1,12}(?:\.\d+)?$/.test(decimal)) {
    ctx.addIssue({ code: 'custom', message: 'must be a decimal amount of 0 or more' });
    return z.NEVER;
  }
  return decimal.replace(/^0+(?=\d)/, '');
});

/** Fraction digits of each named amount checked against a currency (14021 naming the property). */
function checkAmountsFit(
  amounts: Record<string, string | undefined>,
  currency: string | undefined,
  ctx: z.RefinementCtx,
): void {
  for (const [name, amount] of Object.entries(amounts))
    checkAmountFitsCurrency(amount, currency, ctx, [name]);
}

const planFields = {
  name: text(199),
  currency: currencyInput,
  recurringChargeAmount: amountInput,
  chargeFrequency: z.enum(chargeFrequencies, {
    error: `must be one of ${chargeFrequencies.join(', ')}`,
  }),
  trialPeriodDays: wholeNumber(0, maxTrialPeriodDays),
  initialChargeAmount: zeroOrMoreAmountInput,
  maxNumberOfCharges: wholeNumber(1, maxChargesLimit),
  gracePeriodDays: wholeNumber(0, maxGracePeriodDays),
  chargeOnPlanSwitch: booleanInput,
  status: z.enum(planStatuses, { error: 'must be ACTIVE or INACTIVE' }),
};

export const createPlanInput = z
  .object({
    ...planFields,
    trialPeriodDays: planFields.trialPeriodDays.optional(),
    initialChargeAmount: planFields.initialChargeAmount.optional(),
    maxNumberOfCharges: planFields.maxNumberOfCharges.optional(),
    gracePeriodDays: planFields.gracePeriodDays.optional(),
    chargeOnPlanSwitch: planFields.chargeOnPlanSwitch.default(false),
    status: planFields.status.default('ACTIVE'),
  })
  .superRefine((plan, ctx) => {
    const { recurringChargeAmount, initialChargeAmount } = plan;
    checkAmountsFit({ recurringChargeAmount, initialChargeAmount }, plan.currency, ctx);
    if (plan.status === 'INACTIVE') {
      ctx.addIssue({
        code: 'custom',
        path: ['status'],
        message: 'a plan is created ACTIVE',
        params: { errorName: 'CANNOT_CREATE_INACTIVE_PLAN' },
      });
    }
  });
export type CreatePlanInput = z.input<typeof createPlanInput>;

/** PUT /recurring/plans/{planId}: any of the plan's fields; which may change is the service's rule. */
export const updatePlanInput = z
  .object({
    planId: positiveIntegerInput,
    ...Object.fromEntries(Object.entries(planFields).map(([name, schema]) => [name, schema.optional()])),
  } as { planId: typeof positiveIntegerInput } & {
    [K in keyof typeof planFields]: z.ZodOptional<(typeof planFields)[K]>;
  })
  .superRefine((plan, ctx) => {
    const { recurringChargeAmount, initialChargeAmount } = plan;
    // the currency is the stored plan's when the update names none: the service checks those
    checkAmountsFit({ recurringChargeAmount, initialChargeAmount }, plan.currency, ctx);
  });
export type UpdatePlanInput = z.input<typeof updatePlanInput>;

export const planIdInput = z.object({ planId: positiveIntegerInput });

/** The reference's paging: newest first, `after`/`before` an id (exclusive), at most 500 a page. */
export const maxPageSize = 500;
const pageSizeInput = numberInput.superRefine((size, ctx) => {
  if (!Number.isInteger(size)) ctx.addIssue({ code: 'custom', message: 'must be a whole number' });
  else if (size < 1) {
    ctx.addIssue({
      code: 'custom',
      message: 'must be a positive number',
      params: { errorName: 'NEGATIVE_PAGE_SIZE' },
    });
  } else if (size > maxPageSize) {
    ctx.addIssue({
      code: 'custom',
      message: `must be at most ${maxPageSize}`,
      params: { errorName: 'MAX_PAGE_SIZE_EXCEEDED' },
    });
  }
});

export const pagingFields = {
  pagesize: pageSizeInput.default(10),
  after: positiveIntegerInput.optional(),
  before: positiveIntegerInput.optional(),
  gettotal: booleanInput.default(false),
  fulldescription: booleanInput.default(true),
};

export function checkPaging(
  page: { after?: number | undefined; before?: number | undefined },
  ctx: z.RefinementCtx,
) {
  if (page.after !== undefined && page.before !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['before'], message: 'send after or before, not both' });
  }
}

export const listPlansInput = z
  .object({
    ...pagingFields,
    status: z.enum(planStatuses, { error: 'must be ACTIVE or INACTIVE' }).optional(),
  })
  .superRefine(checkPaging);

export const listSubscriptionsInput = z
  .object({
    ...pagingFields,
    status: z
      .enum(subscriptionStatuses, { error: `must be one of ${subscriptionStatuses.join(', ')}` })
      .optional(),
    planid: positiveIntegerInput.optional(),
    vaultedshopperid: positiveIntegerInput.optional(),
    /** The published Node SDK's name for the same filter. */
    shopperid: positiveIntegerInput.optional(),
  })
  .superRefine(checkPaging);

export const listChargesInput = z
  .object({ subscriptionId: positiveIntegerInput, ...pagingFields })
  .superRefine(checkPaging);

/** The payer of a new shopper: the vaulted shopper's own fields. */
export const payerInfoInput = z.object(shopperFields).omit({ paymentSources: true });

/**
 * A SEPA account as the reference's schema nests it, `sepaDirectDebitInfo.sepaDirectDebit.iban`; the flat
 * `sepaDirectDebitInfo.iban` Paywire read first is read still, so neither form of client breaks.
 */
const sepaSourceInput = z.preprocess((value) => {
  const nested = (value as { sepaDirectDebit?: unknown } | null | undefined)?.sepaDirectDebit;
  return typeof nested === 'object' && nested !== null ? nested : value;
}, sepaDirectDebitTransactionInput);

/**
 * A subscription's account, `paymentSource.ecpInfo` as the reference's SDK nests it (`ecp` with the numbers
 * and type, and the billing contact the reference allows, which Paywire does not keep). A vaulted shopper may
 * name a stored account by `publicAccountNumber`, or send `ecp` empty for its newest.
 */
const subscriptionEcpInput = z.object({
  billingContactInfo: billingContactInfoInput.optional(),
  ecp: ecpTransactionInput,
});

export const subscriptionPaymentSourceInput = z.object({
  creditCardInfo: creditCardInfoInput.optional(),
  sepaDirectDebitInfo: sepaSourceInput.optional(),
  ecpInfo: subscriptionEcpInput.optional(),
  /** Wallet tokens are single-use cryptograms: nothing is left to renew with (README, Recurring billing). */
  wallet: z.unknown().optional(),
});

/** What pays, for a new shopper or (optional) for a vaulted one: checked together. */
function checkPayer(
  request: {
    vaultedShopperId?: number | undefined;
    payerInfo?: unknown;
    paymentSource?: z.output<typeof subscriptionPaymentSourceInput> | undefined;
    authorizedByShopper?: boolean | undefined;
  },
  ctx: z.RefinementCtx,
): void {
  const source = request.paymentSource;
  if (request.vaultedShopperId !== undefined && request.payerInfo !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['payerInfo'],
      message: 'send payerInfo or vaultedShopperId, not both',
    });
  }
  if (request.vaultedShopperId === undefined) {
    if (request.payerInfo === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['payerInfo'],
        message: 'is required unless vaultedShopperId is given',
      });
    }
    if (
      !source?.creditCardInfo &&
      !source?.sepaDirectDebitInfo &&
      !source?.ecpInfo &&
      source?.wallet === undefined
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['paymentSource'],
        message: 'is required unless vaultedShopperId is given',
      });
    }
  }
  if (source?.wallet !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['paymentSource', 'wallet'],
      message: 'a wallet token pays once; subscribe with the card or a vaulted shopper',
    });
  }
  const sources = (['creditCardInfo', 'sepaDirectDebitInfo', 'ecpInfo'] as const).filter(
    (name) => source?.[name],
  );
  if (sources.length > 1) {
    ctx.addIssue({
      code: 'custom',
      path: ['paymentSource', sources[1] as string],
      message: 'send one payment source',
    });
  }
  if (source?.ecpInfo) {
    checkEcpAccount(source.ecpInfo.ecp, request.vaultedShopperId !== undefined, ctx, [
      'paymentSource',
      'ecpInfo',
      'ecp',
    ]);
    if (request.authorizedByShopper !== true) {
      ctx.addIssue({
        code: 'custom',
        path: ['authorizedByShopper'],
        message: 'must be true: the shopper has to authorize the ACH debits',
      });
    }
  }
  if (source?.sepaDirectDebitInfo) {
    if (request.vaultedShopperId === undefined && !source.sepaDirectDebitInfo.iban) {
      ctx.addIssue({
        code: 'custom',
        path: ['paymentSource', 'sepaDirectDebitInfo', 'sepaDirectDebit', 'iban'],
        message: 'is required',
      });
    }
    if (request.authorizedByShopper !== true) {
      ctx.addIssue({
        code: 'custom',
        path: ['authorizedByShopper'],
        message: 'must be true: the shopper has to accept the SEPA mandate',
      });
    }
  }
}

const subscriptionOverrides = {
  ...splitInputs,
  quantity: wholeNumber(1, maxSubscriptionQuantity).optional(),
  softDescriptor: softDescriptorInput.optional(),
  descriptorPhoneNumber: optionalText(20),
  overrideRecurringChargeAmount: amountInput.optional(),
  transactionFraudInfo: z.record(z.string(), z.unknown()).optional(),
};

export const createSubscriptionInput = z
  .object({
    planId: positiveIntegerInput,
    vaultedShopperId: positiveIntegerInput.optional(),
    payerInfo: payerInfoInput.optional(),
    paymentSource: subscriptionPaymentSourceInput.optional(),
    authorizedByShopper: booleanInput.optional(),
    ...subscriptionOverrides,
    // 0 is ignored, as the reference says: the plan's trial applies
    overrideTrialPeriodDays: wholeNumber(0, maxTrialPeriodDays).optional(),
    overrideInitialChargeAmount: zeroOrMoreAmountInput.optional(),
    merchantTransactionId: merchantTransactionIdInput.optional(),
  })
  .superRefine((request, ctx) => {
    checkSplitForm(request, ctx);
    checkPayer(request, ctx);
  });
export type CreateSubscriptionInput = z.input<typeof createSubscriptionInput>;

const dateInput = z
  .string()
  .trim()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date yyyy-mm-dd')
  .refine(
    (date) =>
      !Number.isNaN(Date.parse(`${date}T00:00:00Z`)) &&
      new Date(`${date}T00:00:00Z`).toISOString().startsWith(date),
    'is not a calendar date',
  );

export const updateSubscriptionInput = z
  .object({
    subscriptionId: positiveIntegerInput,
    planId: positiveIntegerInput.optional(),
    vaultedShopperId: positiveIntegerInput.optional(),
    paymentSource: subscriptionPaymentSourceInput.optional(),
    authorizedByShopper: booleanInput.optional(),
    ...subscriptionOverrides,
    autoRenew: booleanInput.optional(),
    nextChargeDate: dateInput.optional(),
    status: z.enum(['ACTIVE', 'CANCELED'], { error: 'must be ACTIVE or CANCELED' }).optional(),
  })
  .superRefine((request, ctx) => {
    checkSplitForm(request, ctx);
    if (request.paymentSource) checkPayer({ ...request, vaultedShopperId: 0 }, ctx);
  });
export type UpdateSubscriptionInput = z.input<typeof updateSubscriptionInput>;

export const subscriptionIdInput = z.object({ subscriptionId: positiveIntegerInput });
export const resolveChargeInput = z.object({ transactionid: text(50) });
export const switchChargeAmountInput = z.object({
  subscriptionId: positiveIntegerInput,
  newplanid: positiveIntegerInput,
  newquantity: wholeNumber(1, maxSubscriptionQuantity).optional(),
});

const chargeInfoInput = z.object({
  chargeDescription: optionalText(200),
  fromDate: dateInput.optional(),
  toDate: dateInput.optional(),
});

/** POST /recurring/ondemand: the first charge of a merchant-managed subscription. */
export const createOndemandInput = z
  .object({
    amount: amountInput,
    currency: currencyInput,
    vaultedShopperId: positiveIntegerInput.optional(),
    payerInfo: payerInfoInput.optional(),
    paymentSource: subscriptionPaymentSourceInput.optional(),
    authorizedByShopper: booleanInput.optional(),
    softDescriptor: softDescriptorInput.optional(),
    descriptorPhoneNumber: optionalText(20),
    merchantTransactionId: merchantTransactionIdInput.optional(),
    transactionMetaData: transactionMetaDataInput.optional(),
    transactionFraudInfo: z.record(z.string(), z.unknown()).optional(),
    ...splitInputs,
  })
  .superRefine((request, ctx) => {
    checkAmountFitsCurrency(request.amount, request.currency, ctx);
    checkSplitForm(request, ctx);
    checkPayer(request, ctx);
  });
export type CreateOndemandInput = z.input<typeof createOndemandInput>;

/** POST /recurring/ondemand/{subscriptionId}: a later charge the merchant decides. */
export const ondemandChargeInput = z
  .object({
    subscriptionId: positiveIntegerInput,
    amount: amountInput,
    currency: currencyInput,
    chargeInfo: chargeInfoInput.optional(),
    merchantTransactionId: merchantTransactionIdInput.optional(),
    transactionMetaData: transactionMetaDataInput.optional(),
    scheduled: booleanInput.optional(),
    softDescriptor: softDescriptorInput.optional(),
    ...splitInputs,
  })
  .superRefine((request, ctx) => {
    checkAmountFitsCurrency(request.amount, request.currency, ctx);
    checkSplitForm(request, ctx);
  });

/** The Extended API's `subscription-charge`: a charge of a plan-based subscription outside its schedule. */
export const extendedSubscriptionChargeInput = z
  .object({
    subscriptionId: positiveIntegerInput,
    chargeInfo: z.object({ ...chargeInfoInput.shape, chargeDescription: text(200) }),
    skuChargePrice: z.object({ amount: amountInput, currency: currencyInput }).optional(),
    expectedTotalPrice: z.object({ amount: amountInput, currency: currencyInput }).optional(),
  })
  .superRefine((request, ctx) => {
    if (request.skuChargePrice) {
      checkAmountFitsCurrency(request.skuChargePrice.amount, request.skuChargePrice.currency, ctx, [
        'skuChargePrice',
        'amount',
      ]);
    }
  });

// Responses (JSON shapes; the XML is derived from them).

export interface Plan {
  planId: number;
  name: string;
  currency: string;
  recurringChargeAmount: number;
  chargeFrequency: ChargeFrequency;
  trialPeriodDays?: number;
  initialChargeAmount?: number;
  maxNumberOfCharges?: number;
  gracePeriodDays?: number;
  chargeOnPlanSwitch: boolean;
  status: PlanStatus;
}

export interface PlanSummary {
  planId: number;
  name: string;
}

export interface PlanPage {
  totalResults?: number;
  lastPage: boolean;
  plans: Array<Plan | PlanSummary>;
}

export interface SubscriptionPaymentSource {
  creditCardInfo?: { billingContactInfo?: BillingContact; creditCard: CardResponse };
  /** As the reference's schema nests it (sepa-direct-debit-info.xsd). */
  sepaDirectDebitInfo?: {
    sepaDirectDebit: { ibanFirstFour: string; ibanLastFour: string; mandateId: string; mandateDate: string };
  };
  /** As the reference's SDK names it (EcpInfoResponse): the account's type and masked numbers. */
  ecpInfo?: { ecp: EcpAccount };
}

export type ChargeType = 'INITIAL' | 'RECURRING';

export interface SubscriptionChargeBody {
  chargeId: number;
  subscriptionId: number;
  planId?: number;
  vaultedShopperId: number;
  transactionId: string;
  /** yyyy-mm-dd by the merchant's clock: when the charge fell due. */
  transactionDate: string;
  amount: number;
  currency: string;
  softDescriptor?: string;
  merchantTransactionId?: string;
  paymentSource: SubscriptionPaymentSource;
  chargeInfo: { chargeDescription?: string; fromDate?: string; toDate?: string; chargeType: ChargeType };
  processingInfo: { processingStatus: 'success' | 'pending' | 'fail' | 'refunded' };
}

/** With the terms of its split between vendors (SplitShown), as the request that set them sent them. */
export interface SubscriptionBody extends SplitShown {
  subscriptionId: number;
  planId?: number;
  vaultedShopperId: number;
  status: SubscriptionStatus;
  quantity: number;
  softDescriptor?: string;
  descriptorPhoneNumber?: string;
  chargeFrequency?: ChargeFrequency;
  trialPeriodDays?: number;
  overrideTrialPeriodDays?: number;
  recurringChargeAmount?: number;
  overrideRecurringChargeAmount?: number;
  currency: string;
  initialChargeAmount?: number;
  overrideInitialChargeAmount?: number;
  autoRenew: boolean;
  nextChargeDate?: string;
  paymentSource: SubscriptionPaymentSource;
  /** The charge the request made (creation, plan switch), when it made one. */
  charge?: SubscriptionChargeBody;
}

export interface SubscriptionPage {
  totalResults?: number;
  lastPage: boolean;
  subscriptions: Array<SubscriptionBody | { subscriptionId: number; status: SubscriptionStatus }>;
}

export interface ChargePage {
  totalResults?: number;
  lastPage: boolean;
  charges: SubscriptionChargeBody[];
}

/** The original's price object: what a switch would charge now, in `value` (see docs/recurring.md). */
export interface SwitchChargeAmount {
  value: number;
  currency: string;
}
