import { createHash, generateKeyPairSync, type KeyObject, randomBytes, randomUUID, sign } from 'node:crypto';

/**
 * Wallet payment tokens built the way the wallets build them (see docs/conformance.md, Wallet tokens): Google Pay's
 * PaymentData (web) or the object an Android app makes of it (mobile), and Apple Pay's ApplePayPayment. The
 * cryptographic parts have the real structure and real signatures, made with keys of our own: Google's
 * ECv2 payment method token, and Apple's CMS SignedData whose signing certificate names the environment
 * (`ecc-smp-broker-sign_UC4-PROD` or `-SANDBOX`). Nothing here can be charged anywhere.
 */

export type Environment = 'TEST' | 'PRODUCTION';

// ------------------------------------------------------------------------------------------------ DER ----

function tlv(tag: number, content: Buffer): Buffer {
  const length = content.length;
  let header: Buffer;
  if (length < 0x80) header = Buffer.of(tag, length);
  else {
    const bytes: number[] = [];
    for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
    header = Buffer.of(tag, 0x80 | bytes.length, ...bytes);
  }
  return Buffer.concat([header, content]);
}

const sequence = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => tlv(0x31, Buffer.concat(items));
const contextSpecific = (n: number, ...items: Buffer[]) => tlv(0xa0 + n, Buffer.concat(items));
const octetString = (bytes: Buffer) => tlv(0x04, bytes);
const bitString = (bytes: Buffer) => tlv(0x03, Buffer.concat([Buffer.of(0), bytes]));
const utf8 = (text: string) => tlv(0x0c, Buffer.from(text, 'utf8'));
const printable = (text: string) => tlv(0x13, Buffer.from(text, 'ascii'));

function integer(value: number | Buffer): Buffer {
  let bytes = typeof value === 'number' ? Buffer.of(value) : value;
  if ((bytes[0] ?? 0) & 0x80) bytes = Buffer.concat([Buffer.of(0), bytes]);
  return tlv(0x02, bytes);
}

function oid(dotted: string): Buffer {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [first * 40 + second];
  for (const arc of rest) {
    const groups: number[] = [];
    for (let value = arc; ; value = Math.floor(value / 128)) {
      groups.unshift((value % 128) | (groups.length > 0 ? 0x80 : 0));
      if (value < 128) break;
    }
    bytes.push(...groups);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function utcTime(date: Date): Buffer {
  const text = date.toISOString().replace(/[-:T]/g, '').slice(2, 14);
  return tlv(0x17, Buffer.from(`${text}Z`, 'ascii'));
}

const ecdsaWithSha256 = sequence(oid('1.2.840.10045.4.3.2'));
const sha256 = sequence(oid('2.16.840.1.101.3.4.2.1'));

function name(commonName: string, unit: string): Buffer {
  const attribute = (type: string, value: Buffer) => set(sequence(oid(type), value));
  return sequence(
    attribute('2.5.4.3', utf8(commonName)),
    attribute('2.5.4.11', utf8(unit)),
    attribute('2.5.4.10', utf8('Apple Inc.')),
    attribute('2.5.4.6', printable('US')),
  );
}

interface Certificate {
  der: Buffer;
  subject: Buffer;
  serial: Buffer;
  key: KeyObject;
}

function certificate(subject: Buffer, issuer: { subject: Buffer; key: KeyObject } | 'self'): Certificate {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const signer = issuer === 'self' ? { subject, key: privateKey } : issuer;
  const serial = randomBytes(8);
  const now = Date.now();
  const tbs = sequence(
    contextSpecific(0, integer(2)),
    integer(serial),
    ecdsaWithSha256,
    signer.subject,
    sequence(utcTime(new Date(now - 86_400_000)), utcTime(new Date(now + 5 * 365 * 86_400_000))),
    subject,
    publicKey.export({ type: 'spki', format: 'der' }),
  );
  const der = sequence(tbs, ecdsaWithSha256, bitString(sign('sha256', tbs, signer.key)));
  return { der, subject, serial, key: privateKey };
}

/** Apple's chain, one per environment and test run: the integration CA and the broker signing certificate. */
const appleChains = new Map<Environment, { ca: Certificate; leaf: Certificate }>();

function appleChain(environment: Environment) {
  let chain = appleChains.get(environment);
  if (!chain) {
    const ca = certificate(
      name('Apple Application Integration CA - G3', 'Apple Certification Authority'),
      'self',
    );
    const leafName = `ecc-smp-broker-sign_UC4-${environment === 'PRODUCTION' ? 'PROD' : 'SANDBOX'}`;
    const leaf = certificate(name(leafName, 'iOS Systems'), { subject: ca.subject, key: ca.key });
    chain = { ca, leaf };
    appleChains.set(environment, chain);
  }
  return chain;
}

/** A detached CMS SignedData over `content`, carrying the signing chain, as Apple Pay's `signature` is. */
export function cmsSignature(content: Buffer, environment: Environment): string {
  const { ca, leaf } = appleChain(environment);
  const signerInfo = sequence(
    integer(1),
    sequence(ca.subject, integer(leaf.serial)),
    sha256,
    ecdsaWithSha256,
    octetString(sign('sha256', content, leaf.key)),
  );
  const signedData = sequence(
    integer(1),
    set(sha256),
    sequence(oid('1.2.840.113549.1.7.1')),
    contextSpecific(0, leaf.der, ca.der),
    set(signerInfo),
  );
  return sequence(oid('1.2.840.113549.1.7.2'), contextSpecific(0, signedData)).toString('base64');
}

// ---------------------------------------------------------------------------------------- Apple Pay ----

export interface ApplePayOptions {
  environment?: Environment;
  network?: string;
  /** "Visa 0492": the wallet's name for the card, ending in its last four digits. */
  displayName?: string;
  type?: 'debit' | 'credit' | 'prepaid' | 'store';
  /** The Wallet pass of the card: its number's and its device account number's last four digits. */
  paymentPass?: { primaryAccountNumberSuffix: string; deviceAccountNumberSuffix: string };
  billingContact?: Record<string, unknown> | null;
}

/** Apple Pay's paymentData: EC_v1 data, encrypted for the merchant (random here), and Apple's signature. */
export function applePaymentData(environment: Environment = 'TEST') {
  const ephemeral = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({
    type: 'spki',
    format: 'der',
  });
  const data = randomBytes(160);
  const transactionId = randomBytes(32);
  const header = {
    ephemeralPublicKey: ephemeral.toString('base64'),
    publicKeyHash: createHash('sha256').update(randomBytes(32)).digest('base64'),
    transactionId: transactionId.toString('hex'),
  };
  return {
    version: 'EC_v1',
    data: data.toString('base64'),
    signature: cmsSignature(Buffer.concat([ephemeral, data, transactionId]), environment),
    header,
  };
}

/** The ApplePayPayment of `onpaymentauthorized`: {token, billingContact, shippingContact}. */
export function applePayPayment(options: ApplePayOptions = {}) {
  const billingContact =
    options.billingContact === null
      ? undefined
      : (options.billingContact ?? {
          givenName: 'Grace',
          familyName: 'Hopper',
          addressLines: ['1 Infinite Loop', 'Building 2'],
          locality: 'Cupertino',
          administrativeArea: 'CA',
          postalCode: '95014',
          countryCode: 'US',
          emailAddress: 'grace@example.com',
        });
  return {
    token: {
      paymentData: applePaymentData(options.environment),
      paymentMethod: {
        displayName: options.displayName ?? 'Visa 0492',
        network: options.network ?? 'Visa',
        type: options.type ?? 'debit',
        ...(options.paymentPass ? { paymentPass: options.paymentPass } : {}),
      },
      transactionIdentifier: randomBytes(32).toString('hex').toUpperCase(),
    },
    ...(billingContact ? { billingContact } : {}),
    shippingContact: { givenName: 'Grace', familyName: 'Hopper', emailAddress: 'grace@example.com' },
  };
}

// --------------------------------------------------------------------------------------- Google Pay ----

/** Google's ECv2 PaymentMethodToken: an intermediate key signed by a root key, signing an encrypted message. */
export function googlePaymentMethodToken(): string {
  const root = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const intermediate = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const ephemeral = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const signedKey = JSON.stringify({
    keyValue: intermediate.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    keyExpiration: String(Date.now() + 30 * 86_400_000),
  });
  const signedMessage = JSON.stringify({
    encryptedMessage: randomBytes(420).toString('base64'),
    ephemeralPublicKey: ephemeral.publicKey
      .export({ type: 'spki', format: 'der' })
      .subarray(-65)
      .toString('base64'),
    tag: randomBytes(32).toString('base64'),
  });
  return JSON.stringify({
    signature: sign('sha256', Buffer.from(signedMessage), intermediate.privateKey).toString('base64'),
    intermediateSigningKey: {
      signedKey,
      signatures: [sign('sha256', Buffer.from(signedKey), root.privateKey).toString('base64')],
    },
    protocolVersion: 'ECv2',
    signedMessage,
  });
}

export interface GooglePayOptions {
  /** TEST: the TEST environment's answer (the `example` gateway's placeholder token, a test-suite card). */
  environment?: Environment;
  cardNetwork?: string;
  cardDetails?: string;
  cardClass?: 'CREDIT' | 'DEBIT' | 'PREPAID';
  /** Overrides the gateway token. */
  token?: string;
  description?: string;
  billingAddress?: Record<string, unknown> | null;
}

const networkNames: Record<string, string> = { VISA: 'Visa', MASTERCARD: 'Mastercard', AMEX: 'Amex' };

function googleCard(options: GooglePayOptions) {
  const environment = options.environment ?? 'TEST';
  const cardNetwork = options.cardNetwork ?? 'VISA';
  const cardDetails = options.cardDetails ?? '1111';
  const label = `${networkNames[cardNetwork] ?? cardNetwork} •••• ${cardDetails}`;
  const billingAddress =
    options.billingAddress === null
      ? undefined
      : (options.billingAddress ?? {
          name: 'Card Holder Name',
          address1: '1600 Amphitheatre Parkway',
          address2: '',
          address3: '',
          locality: 'Mountain View',
          administrativeArea: 'CA',
          countryCode: 'US',
          postalCode: '94043',
          sortingCode: '',
        });
  return {
    description: options.description ?? (environment === 'TEST' ? `Test Card: ${label}` : label),
    tokenizationData: {
      type: 'PAYMENT_GATEWAY',
      token:
        options.token ?? (environment === 'TEST' ? 'examplePaymentMethodToken' : googlePaymentMethodToken()),
    },
    info: { cardNetwork, cardDetails, billingAddress },
  };
}

/** The PaymentData object the web API resolves loadPaymentData with. */
export function googlePayWebPaymentData(options: GooglePayOptions = {}) {
  const card = googleCard(options);
  return {
    apiVersion: 2,
    apiVersionMinor: 0,
    email: 'card.holder@example.com',
    paymentMethodData: { type: 'CARD', ...card },
  };
}

/** The object an Android app builds: paymentMethodData with the card class, the transaction id, shipping. */
export function googlePayMobileData(options: GooglePayOptions = {}) {
  const card = googleCard(options);
  return {
    paymentMethodData: {
      description: card.description,
      tokenizationData: card.tokenizationData,
      info: { ...card.info, cardClass: options.cardClass ?? 'CREDIT' },
    },
    email: 'card.holder@example.com',
    googleTransactionId: randomUUID(),
    shippingAddress: {
      name: 'Card Holder Name',
      address1: '1600 Amphitheatre Parkway',
      locality: 'Mountain View',
      administrativeArea: 'CA',
      countryCode: 'US',
      postalCode: '94043',
    },
  };
}

// ---------------------------------------------------------------------------------------- encodings ----

/** Web: JSON, UTF-8, standard base-64 (btoa of the UTF-8 bytes). */
export const encodeWeb = (data: unknown) => Buffer.from(JSON.stringify(data), 'utf8').toString('base64');

/** Mobile: JSON, UTF-8, URL-safe base-64 without padding or line wrapping. */
export const encodeMobile = (data: unknown) =>
  Buffer.from(JSON.stringify(data), 'utf8').toString('base64url');
