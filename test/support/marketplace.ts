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
