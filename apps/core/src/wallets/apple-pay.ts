import type { CardBrand, WalletEnvironment } from '@paywire/contracts';
import { z } from 'zod';
import { commonNames, MalformedSignature, signedDataCertificates } from './pkcs7.ts';
import {
  type CardClass,
  compactContact,
  type DecodedWalletToken,
  invalidToken,
  lastFourDigits,
  optionalText,
  parseWith,
} from './token.ts';

/**
 * Apple Pay: the web form is the ApplePayPayment of `onpaymentauthorized` ({token, billingContact,
 * shippingContact}); an app sends the same JSON built from its PKPayment, or the token alone. The card's
 * network, type and display name are in the clear; the card data is in token.paymentData, encrypted for the
 * merchant's payment processing certificate and signed by Apple.
 */

const networks: Record<string, CardBrand> = {
  visa: 'VISA',
  electron: 'VISA',
  vpay: 'VISA',
  mastercard: 'MASTERCARD',
  maestro: 'MASTERCARD',
  amex: 'AMEX',
  discover: 'DISCOVER',
  jcb: 'JCB',
  chinaunionpay: 'UNIONPAY',
};

const cardClasses: Record<string, CardClass> = { credit: 'CREDIT', debit: 'DEBIT', prepaid: 'PREPAID' };

/**
 * Apple signs production payment data with its `ecc-smp-broker-sign_UC4-PROD` certificate and sandbox
 * payment data with `ecc-smp-broker-sign_UC4-SANDBOX`; the signing certificate travels in the signature.
 */
const brokerCertificate = /^ecc-smp-broker-sign_UC\d+-(PROD|SANDBOX)$/;

const nonEmpty = z.string().min(1);

const token = z.object({
  paymentData: z
    .object({
      version: z.enum(['EC_v1', 'RSA_v1']),
      data: nonEmpty,
      signature: nonEmpty,
      header: z.object({
        publicKeyHash: nonEmpty,
        transactionId: nonEmpty,
        ephemeralPublicKey: nonEmpty.optional(),
        wrappedKey: nonEmpty.optional(),
        applicationData: z.string().optional(),
      }),
    })
    .superRefine((data, ctx) => {
      const key = data.version === 'EC_v1' ? 'ephemeralPublicKey' : 'wrappedKey';
      if (!data.header[key]) ctx.addIssue({ code: 'custom', path: ['header', key], message: 'is required' });
    }),
  paymentMethod: z.object({
    displayName: z.string().max(100).optional(),
    network: z.string().min(1).max(40),
    type: z.enum(['debit', 'credit', 'prepaid', 'store']),
    paymentPass: z
      .object({
        primaryAccountNumberSuffix: lastFourDigits.optional(),
        deviceAccountNumberSuffix: lastFourDigits.optional(),
      })
      .optional(),
  }),
  transactionIdentifier: nonEmpty,
});

const contact = z.object({
  givenName: optionalText(100),
  familyName: optionalText(100),
  addressLines: z.array(z.string().max(200)).max(4).optional(),
  locality: optionalText(100),
  administrativeArea: optionalText(50),
  postalCode: optionalText(20),
  countryCode: z
    .string()
    .regex(/^\s*([A-Za-z]{2})?\s*$/, 'must be a two-letter country code')
    .optional(),
  emailAddress: z.string().max(200).optional(),
});

const payment = z.object({ token, billingContact: contact.optional() });

/** TEST for a sandbox-signed token, PRODUCTION for a production-signed one; anything else is not Apple's. */
function environmentOf(signature: string): WalletEnvironment {
  const der = /^[A-Za-z0-9+/]+={0,2}$/.test(signature) ? Buffer.from(signature, 'base64') : undefined;
  let names: string[] = [];
  try {
    names = der ? signedDataCertificates(der).flatMap(commonNames) : [];
  } catch (error) {
    if (!(error instanceof MalformedSignature)) throw error;
  }
  const broker = names.map((name) => brokerCertificate.exec(name)?.[1]).find(Boolean);
  if (!broker) throw invalidToken('token.paymentData.signature is not signed by an Apple Pay certificate');
  return broker === 'PROD' ? 'PRODUCTION' : 'TEST';
}

export function decodeApplePay(json: unknown): DecodedWalletToken {
  // The payment object, or its token alone.
  const isPayment = typeof json === 'object' && json !== null && 'token' in json;
  const { token: applePayToken, billingContact: billing } = isPayment
    ? parseWith(payment, json)
    : { token: parseWith(token, json, 'token.'), billingContact: undefined };
  const { paymentData, paymentMethod } = applePayToken;

  const brand = networks[paymentMethod.network.toLowerCase()];
  if (!brand) throw invalidToken('token.paymentMethod.network is not a supported card network');
  const lastFour =
    paymentMethod.paymentPass?.primaryAccountNumberSuffix ??
    /(?:^|\D)(\d{4})\s*$/.exec(paymentMethod.displayName ?? '')?.[1];
  if (!lastFour)
    throw invalidToken("token.paymentMethod.displayName does not end in the card's last four digits");
  const environment = environmentOf(paymentData.signature);

  const [address1, ...rest] = (billing?.addressLines ?? []).map((line) => line.trim()).filter(Boolean);
  const billingContact =
    billing &&
    compactContact({
      firstName: billing.givenName,
      lastName: billing.familyName,
      address1,
      address2: rest.join(', ').slice(0, 200) || undefined,
      city: billing.locality,
      state: billing.administrativeArea,
      zip: billing.postalCode,
      country: billing.countryCode?.trim().toLowerCase() || undefined,
    });
  const cardClass = cardClasses[paymentMethod.type];
  const dpanLastFour = paymentMethod.paymentPass?.deviceAccountNumberSuffix;
  const email = billing?.emailAddress?.trim();
  return {
    walletType: 'APPLE_PAY',
    environment,
    brand,
    lastFour,
    ...(cardClass ? { cardClass } : {}),
    ...(dpanLastFour ? { dpanLastFour } : {}),
    ...(billingContact ? { billingContact } : {}),
    ...(email ? { email } : {}),
    // As the wallet wrote it (the parsed copy has the schema's key order), for the processor to open.
    paymentData: JSON.stringify(
      ((isPayment ? (json as { token: object }).token : json) as { paymentData: object }).paymentData,
    ),
  };
}
