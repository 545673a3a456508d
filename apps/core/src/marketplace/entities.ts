import { defineEntity, type InferEntity, p } from '@mikro-orm/postgresql';
import type {
  PayoutFrequency,
  PayoutInfo,
  Vendor as PublicVendor,
  VendorAccountStatus,
  VendorPayoutStatus,
  VendorPrincipal,
} from '@paywire/contracts';

/** A vendor's contact fields, as sent (every optional property of the public vendor that is plain text). */
export type VendorContact = Pick<
  PublicVendor,
  | 'name'
  | 'vendorUrl'
  | 'ipnUrl'
  | 'firstName'
  | 'lastName'
  | 'address'
  | 'address2'
  | 'city'
  | 'zip'
  | 'phone'
  | 'state'
  | 'taxId'
  | 'vatId'
  | 'defaultPayoutCurrency'
>;

/** What the vault seals of a vendor (migration 0026-marketplace): never stored or shown in full otherwise. */
export interface VendorSecrets {
  iban?: string;
  bankAccountId?: string;
  personalIdentificationNumber?: string;
  driverLicenseNumber?: string;
  passportNumber?: string;
}

/**
 * A merchant's vendor. `principal` and `payout` hold what may be shown: the sealed secrets appear there
 * only as their last four characters. `payoutStatus` is the onboarding state (docs/marketplace.md).
 */
export const Vendor = defineEntity({
  name: 'Vendor',
  properties: {
    id: p.integer().primary(),
    merchantId: p.integer(),
    email: p.string().length(100),
    country: p.string().length(2),
    contact: p.json<VendorContact>(),
    frequency: p.string().length(12).$type<PayoutFrequency>(),
    delay: p.integer(),
    principal: p.json<VendorPrincipal>().nullable(),
    payout: p.json<PayoutInfo>().nullable(),
    sealedSecrets: p.text().nullable(),
    commissionHundredths: p.integer().nullable(),
    accountStatus: p.string().length(8).$type<VendorAccountStatus>(),
    recurringCommission: p.string().length(1).nullable(),
    payoutStatus: p.string().length(10).$type<VendorPayoutStatus>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type Vendor = InferEntity<typeof Vendor>;
