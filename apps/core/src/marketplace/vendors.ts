import type { EntityManager } from '@mikro-orm/postgresql';
import {
  amountInMinorUnits,
  type createVendorInput,
  DomainError,
  type listVendorsInput,
  minorToAmount,
  type PayoutInfo,
  type PayoutInfoInput,
  type Vendor as PublicVendor,
  percentHundredths,
  type updateVendorInput,
  type VendorPage,
  type VendorPayoutStatus,
  type VendorPrincipal,
} from '@paywire/contracts';
import type { z } from 'zod';
import { callNow } from '../clock/clock.ts';
import type { MerchantContext } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized } from '../db/wire.ts';
import { ipnDate, recordEvent } from '../ipn/events.ts';
import { pageOf } from '../recurring/paging.ts';
import { recordAudit } from '../security/audit/trail.ts';
import { bindings } from '../security/card-vault.ts';
import { Vendor, type VendorContact, type VendorSecrets } from './entities.ts';
import { nextVendorId } from './queries.ts';

type CreateVendor = z.output<typeof createVendorInput>;
type UpdateVendor = z.output<typeof updateVendorInput>;

const contactNames = [
  'name',
  'vendorUrl',
  'ipnUrl',
  'firstName',
  'lastName',
  'address',
  'address2',
  'city',
  'zip',
  'phone',
  'state',
  'taxId',
  'vatId',
  'defaultPayoutCurrency',
] as const satisfies readonly (keyof VendorContact)[];

const principalSecrets = ['personalIdentificationNumber', 'driverLicenseNumber', 'passportNumber'] as const;
const payoutSecrets = ['iban', 'bankAccountId'] as const;

/** A secret as answers show it: its last four characters behind a fixed mask. */
const lastFour = (value: string) => `****${value.slice(-4)}`;

const defined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;

function openSecrets(ctx: MerchantContext, vendor: Vendor): VendorSecrets {
  if (!vendor.sealedSecrets) return {};
  return JSON.parse(ctx.vault.open(vendor.sealedSecrets, bindings.vendor(vendor.merchantId, vendor.id)));
}

/** The payout info as stored to show: the secrets reduced to their last four, the minimum in the currency's units. */
function shownPayout(payout: PayoutInfoInput, currency: string): PayoutInfo {
  const { iban, bankAccountId, minimalPayoutAmount, ...plain } = payout;
  return defined({
    ...plain,
    ...(minimalPayoutAmount !== undefined
      ? {
          minimalPayoutAmount: minorToAmount(
            amountInMinorUnits(minimalPayoutAmount, currency, 'payoutInfo.minimalPayoutAmount'),
            currency,
          ),
        }
      : {}),
    ...(iban ? { iban: lastFour(iban) } : {}),
    ...(bankAccountId ? { bankAccountId: lastFour(bankAccountId) } : {}),
  });
}

/**
 * What a vendor still lacks before it can be paid out (the reference's verification.missingItems): the
 * principal's identity and address, and a bank account its payout type can pay to.
 */
export function missingItems(vendor: Pick<Vendor, 'principal' | 'payout'>): string[] {
  const missing: string[] = [];
  const principal = vendor.principal ?? {};
  for (const name of ['firstName', 'lastName', 'dob', 'address', 'city', 'zip', 'country'] as const) {
    if (!principal[name]) missing.push(`vendorPrincipal.${name}`);
  }
  const payout = vendor.payout;
  if (!payout) return [...missing, 'payoutInfo'];
  if (!payout.nameOnAccount) missing.push('payoutInfo.nameOnAccount');
  if (payout.payoutType === 'SEPA') {
    if (!payout.iban) missing.push('payoutInfo.iban');
  } else {
    if (!payout.bankAccountId && !payout.iban) missing.push('payoutInfo.bankAccountId');
    if (!payout.bankId && !payout.swiftBic) missing.push('payoutInfo.bankId');
  }
  return missing;
}

export function presentVendor(vendor: Vendor): PublicVendor {
  const missing = missingItems(vendor);
  return defined({
    vendorId: vendor.id,
    email: vendor.email,
    ...vendor.contact,
    country: vendor.country,
    frequency: vendor.frequency,
    delay: vendor.delay,
    vendorPrincipal: vendor.principal ?? undefined,
    payoutInfo: vendor.payout ? [vendor.payout] : undefined,
    vendorAgreement: defined({
      commissionPercent: vendor.commissionHundredths == null ? undefined : vendor.commissionHundredths / 100,
      accountStatus: vendor.accountStatus,
      recurringCommission: vendor.recurringCommission ?? undefined,
    }),
    verification: {
      payoutStatus: vendor.payoutStatus,
      processingStatus: vendor.accountStatus === 'ACTIVE' ? 'Active' : 'Inactive',
      ...(vendor.payoutStatus === 'Incomplete' && missing.length > 0 ? { missingItems: missing } : {}),
    },
  } as PublicVendor);
}

export async function findVendor(em: EntityManager, merchantId: number, vendorId: number): Promise<Vendor> {
  const vendor = await em.findOne(Vendor, { id: vendorId, merchantId });
  if (!vendor) {
    throw new DomainError('VENDOR_NOT_FOUND', `vendor ${vendorId} was not found`, {
      name: 'vendorId',
      messageValue: String(vendorId),
    });
  }
  return vendor;
}

/** Writes what the request sent over the vendor's fields; sections merge, a payout method replaces the old. */
function apply(
  ctx: MerchantContext,
  vendor: Vendor,
  input: Partial<CreateVendor>,
  secrets: VendorSecrets,
): void {
  if (input.email !== undefined) vendor.email = input.email;
  if (input.country !== undefined) vendor.country = input.country;
  const contact: VendorContact = { ...vendor.contact };
  for (const name of contactNames) if (input[name] !== undefined) contact[name] = input[name];
  vendor.contact = defined(contact);
  if (input.frequency !== undefined) vendor.frequency = input.frequency;
  if (input.delay !== undefined) vendor.delay = input.delay;
  let next = { ...secrets };
  if (input.vendorPrincipal) {
    const sent = input.vendorPrincipal;
    const principal: VendorPrincipal = { ...vendor.principal, ...defined(sent) };
    for (const name of principalSecrets) {
      const value = sent[name];
      if (value !== undefined) next[name] = value;
      if (next[name]) principal[name] = lastFour(next[name]);
    }
    vendor.principal = principal;
  }
  const [payout] = input.payoutInfo ?? [];
  if (payout) {
    next = { ...next, iban: payout.iban, bankAccountId: payout.bankAccountId };
    const currency = payout.baseCurrency ?? vendor.contact.defaultPayoutCurrency ?? 'EUR';
    vendor.payout = shownPayout(payout, currency);
    for (const name of payoutSecrets) if (!next[name]) delete next[name];
  }
  const agreement = input.vendorAgreement;
  if (agreement?.commissionPercent !== undefined)
    vendor.commissionHundredths = percentHundredths(agreement.commissionPercent);
  if (agreement?.accountStatus !== undefined) vendor.accountStatus = agreement.accountStatus;
  if (agreement?.recurringCommission !== undefined)
    vendor.recurringCommission = agreement.recurringCommission;
  const sealedAny = Object.values(next).some(Boolean);
  vendor.sealedSecrets = sealedAny
    ? ctx.vault.seal(JSON.stringify(defined(next)), bindings.vendor(vendor.merchantId, vendor.id))
    : null;
}

/** A vendor's IPN parameters: the reference names vendorId and vendorName; the statuses say what changed. */
function vendorEventParameters(vendor: Vendor, now: Date) {
  const shown = presentVendor(vendor);
  return {
    referenceNumber: vendor.id,
    vendorId: vendor.id,
    vendorName:
      vendor.contact.name ?? [vendor.contact.firstName, vendor.contact.lastName].filter(Boolean).join(' '),
    vendorEmail: vendor.email,
    payoutStatus: shown.verification.payoutStatus,
    processingStatus: shown.verification.processingStatus,
    transactionDate: ipnDate(now),
  };
}

/**
 * Onboarding after a write: a vendor with everything a payout needs leaves Incomplete for review
 * (UnderVendorReview), and Paywire, which runs no KYC review of its own, approves it at once
 * (VendorStatusChanged); one that loses a required item goes back to Incomplete. A changed account status
 * (ACTIVE/INACTIVE) is a VendorStatusChanged too.
 */
async function onboard(
  ctx: MerchantContext,
  em: EntityManager,
  vendor: Vendor,
  before: { payoutStatus: VendorPayoutStatus | null; accountStatus: string | null },
): Promise<void> {
  const now = await callNow(ctx, em);
  const complete = missingItems(vendor).length === 0;
  let changed = before.accountStatus !== null && before.accountStatus !== vendor.accountStatus;
  if (!complete && vendor.payoutStatus !== 'Declined') {
    changed ||= before.payoutStatus !== null && before.payoutStatus !== 'Incomplete';
    vendor.payoutStatus = 'Incomplete';
  } else if (complete && (before.payoutStatus ?? 'Incomplete') === 'Incomplete') {
    vendor.payoutStatus = 'Pending';
    await recordEvent(ctx, em, 'UnderVendorReview', vendorEventParameters(vendor, now));
    vendor.payoutStatus = 'Approved';
    changed = true;
  }
  if (changed) await recordEvent(ctx, em, 'VendorStatusChanged', vendorEventParameters(vendor, now));
}

/** The audit event of a change a call made to a vendor (a bank account among it), in the change's transaction. */
async function auditVendor(
  ctx: MerchantContext,
  em: EntityManager,
  action: 'vendor.create' | 'vendor.update',
  vendorId: number,
): Promise<void> {
  if (!ctx.origin) return;
  await recordAudit(em, ctx.origin, {
    merchantId: ctx.merchantId,
    action,
    object: `vendor:${vendorId}`,
    outcome: 'success',
  });
}

export async function createVendor(ctx: MerchantContext, input: CreateVendor): Promise<{ vendorId: number }> {
  return inTransaction(ctx.em, async (em) => {
    const [next] = await executeParameterized<{ id: number }>(em, nextVendorId, []);
    if (!next) throw new Error('the vendor sequence returned no id');
    const vendor = em.create(Vendor, {
      id: next.id,
      merchantId: ctx.merchantId,
      email: input.email,
      country: input.country,
      contact: {},
      frequency: 'MONTHLY',
      delay: 0,
      principal: null,
      payout: null,
      sealedSecrets: null,
      commissionHundredths: null,
      accountStatus: 'ACTIVE',
      recurringCommission: null,
      payoutStatus: 'Incomplete',
    });
    apply(ctx, vendor, input, {});
    await onboard(ctx, em, vendor, { payoutStatus: null, accountStatus: null });
    await em.flush();
    await auditVendor(ctx, em, 'vendor.create', vendor.id);
    return { vendorId: vendor.id };
  });
}

export async function updateVendor(ctx: MerchantContext, input: UpdateVendor): Promise<void> {
  await inTransaction(ctx.em, async (em) => {
    const vendor = await findVendor(em, ctx.merchantId, input.vendorId);
    const before = { payoutStatus: vendor.payoutStatus, accountStatus: vendor.accountStatus };
    apply(ctx, vendor, input, openSecrets(ctx, vendor));
    await onboard(ctx, em, vendor, before);
    await em.flush();
    await auditVendor(ctx, em, 'vendor.update', vendor.id);
  });
}

export async function getVendor(ctx: MerchantContext, vendorId: number): Promise<PublicVendor> {
  return presentVendor(await findVendor(ctx.em, ctx.merchantId, vendorId));
}

export async function listVendors(
  ctx: MerchantContext,
  input: z.output<typeof listVendorsInput>,
): Promise<VendorPage> {
  const page = await pageOf(ctx.em, Vendor, { merchantId: ctx.merchantId }, input);
  return {
    ...(page.totalResults !== undefined ? { totalResults: page.totalResults } : {}),
    lastPage: page.lastPage,
    vendor: page.items.map(presentVendor),
  };
}
