import { as, type client, expectStatus } from './http.ts';
import type { TestMerchant } from './stack.ts';

/** The sandbox IBAN that settles: a vendor's SEPA payout account in the marketplace tests. */
export const IBAN = 'DE89370400440532013000';

/** The reference's full vendor: principal, a SEPA account and a 30% agreement. */
export const completeVendor = (overrides: Record<string, unknown> = {}) => ({
  email: 'vendor@example.com',
  name: 'Cakes Ltd',
  firstName: 'Joe',
  lastName: 'Baker',
  phone: '+49 30 1234567',
  address: 'Hauptstrasse 1',
  city: 'Berlin',
  zip: '10115',
  country: 'de',
  defaultPayoutCurrency: 'EUR',
  frequency: 'MONTHLY',
  delay: 5,
  vendorPrincipal: {
    firstName: 'Joe',
    lastName: 'Baker',
    address: 'Hauptstrasse 1',
    city: 'Berlin',
    zip: '10115',
    country: 'DE',
    dob: '28-09-1980',
    personalIdentificationNumber: '987654321',
    email: 'joe@example.com',
  },
  payoutInfo: [
    {
      payoutType: 'SEPA',
      baseCurrency: 'EUR',
      nameOnAccount: 'Cakes Ltd',
      bankAccountClass: 'CORPORATE',
      bankName: 'Commerzbank',
      country: 'DE',
      iban: IBAN,
      swiftBic: 'COBADEFFXXX',
      minimalPayoutAmount: 20,
    },
  ],
  vendorAgreement: { commissionPercent: 30 },
  ...overrides,
});

/** Creates a vendor of `merchant` (completeVendor with `overrides`); returns its id, read from Location. */
export async function createVendor(
  api: ReturnType<typeof client>,
  merchant: TestMerchant,
  overrides: Record<string, unknown> = {},
): Promise<number> {
  const reply = expectStatus(await api.post('/vendors', completeVendor(overrides), as(merchant)), 201);
  const location = reply.headers.get('location') ?? '';
  return Number(location.slice(location.lastIndexOf('/') + 1));
}

/** The vendors a bad split names: 30% agreed, no commission agreed, INACTIVE, another merchant's. */
export interface SplitVendors {
  cakes: number;
  teas: number;
  inactive: number;
  foreign: number;
}

/**
 * The reference's split errors a payment's vendorInfo/vendorsInfo meets before anything is charged (card
 * sales and debits alike): [case, its split of the vendors (made once they exist), its failure].
 * `overAmount` is just over the payment's amount.
 */
export function badSplitCases(
  overAmount: number,
): Array<[string, (vendors: SplitVendors) => Record<string, unknown>, Record<string, unknown>]> {
  return [
    [
      'an unknown vendor',
      () => ({ vendorInfo: { vendorId: 999999 } }),
      { errorName: 'UNAUTHORIZED_USE_OF_VENDOR', code: 20050, property: 'vendorInfo.vendorId' },
    ],
    [
      "another merchant's vendor",
      ({ cakes, foreign }) => ({ vendorsInfo: { vendorInfo: [{ vendorId: cakes }, { vendorId: foreign }] } }),
      { errorName: 'UNAUTHORIZED_USE_OF_VENDOR', code: 20050, property: 'vendorsInfo.vendorInfo.1.vendorId' },
    ],
    [
      'an inactive vendor',
      ({ inactive }) => ({ vendorInfo: { vendorId: inactive } }),
      { errorName: 'INACTIVE_VENDOR', code: 20052, property: 'vendorInfo.vendorId' },
    ],
    [
      'a vendor named twice',
      ({ cakes }) => ({ vendorsInfo: { vendorInfo: [{ vendorId: cakes }, { vendorId: cakes }] } }),
      { errorName: 'DUPLICATE_VENDOR', code: 14035, property: 'vendorsInfo.vendorInfo.1.vendorId' },
    ],
    [
      'eleven vendors',
      () => ({ vendorsInfo: { vendorInfo: Array.from({ length: 11 }, (_, n) => ({ vendorId: n + 1 })) } }),
      { errorName: 'VENDOR_LIMIT_MAX', code: 14036, property: 'vendorsInfo.vendorInfo' },
    ],
    [
      'percents over 100',
      ({ cakes, teas }) => ({
        vendorsInfo: {
          vendorInfo: [
            { vendorId: cakes, commissionPercent: 60 },
            { vendorId: teas, commissionPercent: 40.01 },
          ],
        },
      }),
      { errorName: 'VENDOR_COMMISSION_EXCEEDED', code: 14037, property: 'vendorsInfo' },
    ],
    [
      'amounts over the payment',
      ({ cakes }) => ({ vendorInfo: { vendorId: cakes, commissionAmount: overAmount } }),
      { errorName: 'VENDOR_COMMISSION_EXCEEDED', code: 14037, property: 'vendorInfo' },
    ],
    [
      'a percent and an amount',
      ({ cakes }) => ({ vendorInfo: { vendorId: cakes, commissionAmount: 1, commissionPercent: 1 } }),
      { errorName: 'VALIDATION_GENERAL_FAILURE', code: 10001, property: 'vendorInfo.commissionAmount' },
    ],
    [
      'no commission sent or agreed',
      ({ teas }) => ({ vendorInfo: { vendorId: teas } }),
      { errorName: 'VALIDATION_GENERAL_FAILURE', code: 10001, property: 'vendorInfo.commissionPercent' },
    ],
    [
      'an amount finer than the currency',
      ({ cakes }) => ({ vendorInfo: { vendorId: cakes, commissionAmount: '1.005' } }),
      {
        errorName: 'AMOUNT_EXCEEDED_MAXIMUM_ALLOWED_FRACTION_DIGITS',
        code: 14021,
        property: 'vendorInfo.commissionAmount',
      },
    ],
    [
      'both vendorInfo and vendorsInfo',
      ({ cakes, teas }) => ({
        vendorInfo: { vendorId: cakes },
        vendorsInfo: { vendorInfo: [{ vendorId: teas }] },
      }),
      { errorName: 'VALIDATION_GENERAL_FAILURE', code: 10001, property: 'vendorsInfo' },
    ],
  ];
}
