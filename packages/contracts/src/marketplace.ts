import { z } from 'zod';
import { isCurrency } from './money.ts';
import { optionalText, positiveIntegerInput } from './primitives.ts';
import { checkPaging, pagingFields } from './recurring.ts';
import { ibanInput } from './sepa.ts';
import { commissionAmountInput, listOf, percentInput } from './vendor-split.ts';

/**
 * Marketplaces as the original's Marketplace API documents them: vendors (create, retrieve, update, list),
 * the split of a transaction between the merchant and up to ten vendors, and vendor amounts on refunds.
 * See docs/marketplace.md.
 */

export const payoutTypes = ['SEPA', 'ACH', 'WIRE', 'CHAPS'] as const;
export const payoutFrequencies = ['DAILY', 'WEEKLY', 'SEMIMONTHLY', 'MONTHLY'] as const;
export type PayoutFrequency = (typeof payoutFrequencies)[number];
export const vendorAccountStatuses = ['ACTIVE', 'INACTIVE'] as const;
export type VendorAccountStatus = (typeof vendorAccountStatuses)[number];
/** The reference's onboarding states: payout status (KYC review) and processing status (may it sell). */
export type VendorPayoutStatus = 'Incomplete' | 'Pending' | 'Approved' | 'Declined';
export type VendorProcessingStatus = 'Active' | 'Inactive';

const oneOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z
    .string()
    .trim()
    .toUpperCase()
    .pipe(z.enum(values, { error: `must be one of ${values.join(', ')}` }));

const countryInput = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{2}$/, 'must be a two-letter country code')
  .transform((code) => code.toUpperCase());

const currencyCode = z
  .string()
  .trim()
  .refine((code) => isCurrency(code), 'must be a supported ISO 4217 currency code');

const vendorPrincipalInput = z.object({
  firstName: optionalText(100),
  lastName: optionalText(100),
  address: optionalText(100),
  address2: optionalText(100),
  city: optionalText(100),
  state: optionalText(20),
  zip: optionalText(20),
  country: countryInput.optional(),
  dob: z
    .string()
    .trim()
    .regex(/^\d{2}-\d{2}-\d{4}$/, 'must be a date dd-MM-yyyy')
    .optional(),
  personalIdentificationNumber: optionalText(40),
  driverLicenseNumber: optionalText(40),
  passportNumber: optionalText(40),
  email: z.email('must be an email address').max(100).optional(),
});

const payoutInfoInput = z.object({
  payoutType: oneOf(payoutTypes),
  baseCurrency: currencyCode.optional(),
  nameOnAccount: optionalText(30),
  bankAccountClass: oneOf(['PERSONAL', 'CORPORATE', 'INTERNATIONAL'] as const).optional(),
  bankAccountType: oneOf(['CHECKING', 'SAVINGS'] as const).optional(),
  bankName: optionalText(100),
  bankId: optionalText(40),
  country: countryInput.optional(),
  state: optionalText(20),
  city: optionalText(100),
  address: optionalText(100),
  zip: optionalText(20),
  bankAccountId: z
    .union([z.number(), z.string()])
    .transform((value) => String(value).trim())
    .pipe(z.string().regex(/^[A-Za-z0-9]{4,34}$/, 'must be 4 to 34 letters or digits'))
    .optional(),
  iban: ibanInput.optional(),
  swiftBic: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}(?:[A-Z0-9]{3})?$/, 'must be a BIC of 8 or 11 characters')
    .optional(),
  minimalPayoutAmount: commissionAmountInput.optional(),
  paymentReference: optionalText(35),
});
export type PayoutInfoInput = z.output<typeof payoutInfoInput>;

const vendorAgreementInput = z.object({
  commissionPercent: percentInput.optional(),
  accountStatus: oneOf(vendorAccountStatuses).optional(),
  recurringCommission: oneOf(['Y', 'N'] as const).optional(),
});

/** The JSON API sends payoutInfo as an array, the SDK as one object; Paywire keeps one payout method. */
const payoutInfoListInput = listOf(payoutInfoInput).refine(
  (list) => list.length <= 1,
  'Paywire keeps one payout method per vendor',
);

const vendorFields = {
  email: z.email('must be an email address').max(100),
  name: optionalText(100),
  firstName: optionalText(100),
  lastName: optionalText(100),
  phone: optionalText(40),
  address: optionalText(100),
  address2: optionalText(100),
  city: optionalText(100),
  state: optionalText(20),
  zip: optionalText(20),
  country: countryInput,
  taxId: optionalText(40),
  vatId: optionalText(40),
  vendorUrl: optionalText(2048),
  ipnUrl: optionalText(2048),
  defaultPayoutCurrency: currencyCode.optional(),
  frequency: oneOf(payoutFrequencies).optional(),
  delay: positiveIntegerInput.pipe(z.number().max(60, 'must be at most 60 days')).optional(),
  vendorPrincipal: vendorPrincipalInput.optional(),
  vendorAgreement: vendorAgreementInput.optional(),
  payoutInfo: payoutInfoListInput.optional(),
};

export const createVendorInput = z.object(vendorFields);
export type CreateVendorInput = z.input<typeof createVendorInput>;

/** PUT /vendors/{vendorId}: the fields sent replace the stored ones; a section sent replaces that section. */
export const updateVendorInput = z.object({
  ...vendorFields,
  email: vendorFields.email.optional(),
  country: vendorFields.country.optional(),
  vendorId: positiveIntegerInput,
});

export const vendorIdInput = z.object({ vendorId: positiveIntegerInput });

const { fulldescription: _, ...vendorPaging } = pagingFields;
export const listVendorsInput = z.object(vendorPaging).superRefine(checkPaging);

export interface VendorPrincipal {
  firstName?: string;
  lastName?: string;
  address?: string;
  address2?: string;
  city?: string;
  zip?: string;
  state?: string;
  country?: string;
  dob?: string;
  /** Shown only by their last four characters. */
  personalIdentificationNumber?: string;
  passportNumber?: string;
  driverLicenseNumber?: string;
  email?: string;
}

export interface PayoutInfo {
  payoutType: (typeof payoutTypes)[number];
  baseCurrency?: string;
  minimalPayoutAmount?: number;
  nameOnAccount?: string;
  bankAccountClass?: string;
  bankAccountType?: string;
  swiftBic?: string;
  bankName?: string;
  bankId?: string;
  country?: string;
  city?: string;
  address?: string;
  state?: string;
  zip?: string;
  /** Shown only by its last four characters. */
  iban?: string;
  bankAccountId?: string;
  paymentReference?: string;
}

export interface Vendor {
  vendorId: number;
  email: string;
  name?: string;
  vendorUrl?: string;
  ipnUrl?: string;
  firstName?: string;
  lastName?: string;
  address?: string;
  address2?: string;
  city?: string;
  zip?: string;
  country: string;
  phone?: string;
  state?: string;
  taxId?: string;
  vatId?: string;
  defaultPayoutCurrency?: string;
  frequency: PayoutFrequency;
  delay: number;
  vendorPrincipal?: VendorPrincipal;
  payoutInfo?: PayoutInfo[];
  vendorAgreement: {
    commissionPercent?: number;
    accountStatus: VendorAccountStatus;
    recurringCommission?: string;
  };
  verification: {
    payoutStatus: VendorPayoutStatus;
    processingStatus: VendorProcessingStatus;
    missingItems?: string[];
  };
}

export interface VendorPage {
  totalResults?: number;
  lastPage: boolean;
  vendor: Vendor[];
}
