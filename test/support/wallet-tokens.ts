import {
  createCipheriv,
  createHash,
  createHmac,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  type KeyObject,
  randomBytes,
  randomUUID,
  sign,
} from 'node:crypto';

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

/** An X.509 v3 extension: its OID and DER value; basicConstraints CA and Apple's marker OIDs are all we need. */
const extension = (type: string, value: Buffer) => sequence(oid(type), octetString(value));
const caExtension = extension('2.5.29.19', sequence(tlv(0x01, Buffer.of(0xff))));
const appleMarker = (type: string) => extension(type, tlv(0x05, Buffer.alloc(0)));

function certificate(
  subject: Buffer,
  issuer: { subject: Buffer; key: KeyObject } | 'self',
  extensions: Buffer[] = [],
  validity: { from: Date; to: Date } = {
    from: new Date(Date.now() - 86_400_000),
    to: new Date(Date.now() + 5 * 365 * 86_400_000),
  },
): Certificate {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const signer = issuer === 'self' ? { subject, key: privateKey } : issuer;
  const serial = Buffer.concat([Buffer.of(0x11), randomBytes(7)]);
  const tbs = sequence(
    contextSpecific(0, integer(2)),
    integer(serial),
    ecdsaWithSha256,
    signer.subject,
    sequence(utcTime(validity.from), utcTime(validity.to)),
    subject,
    publicKey.export({ type: 'spki', format: 'der' }),
    ...(extensions.length > 0 ? [contextSpecific(3, sequence(...extensions))] : []),
  );
  const der = sequence(tbs, ecdsaWithSha256, bitString(sign('sha256', tbs, signer.key)));
  return { der, subject, serial, key: privateKey };
}

/** Apple's leaf (payment processing signing) and intermediate (Application Integration CA) markers. */
export const appleLeafOid = '1.2.840.113635.100.6.29';
export const appleIntermediateOid = '1.2.840.113635.100.6.2.14';

interface AppleChain {
  root: Certificate;
  ca: Certificate;
  leaf: Certificate;
}

/** A root, Apple's intermediate and a broker leaf naming the environment, as Apple's chain is built. */
export function newAppleChain(
  environment: Environment,
  options: { leafOid?: string; leafValidity?: { from: Date; to: Date } } = {},
): AppleChain {
  const root = certificate(name('Test Apple Root CA - G3', 'Apple Certification Authority'), 'self', [
    caExtension,
  ]);
  const ca = certificate(
    name('Apple Application Integration CA - G3', 'Apple Certification Authority'),
    { subject: root.subject, key: root.key },
    [caExtension, appleMarker(appleIntermediateOid)],
  );
  const leafName = `ecc-smp-broker-sign_UC4-${environment === 'PRODUCTION' ? 'PROD' : 'SANDBOX'}`;
  const leaf = certificate(
    name(leafName, 'iOS Systems'),
    { subject: ca.subject, key: ca.key },
    [appleMarker(options.leafOid ?? appleLeafOid)],
    options.leafValidity,
  );
  return { root, ca, leaf };
}

/** Apple's chain, one per environment and test run. */
const appleChains = new Map<Environment, AppleChain>();

function appleChain(environment: Environment) {
  let chain = appleChains.get(environment);
  if (!chain) {
    chain = newAppleChain(environment);
    appleChains.set(environment, chain);
  }
  return chain;
}

/** The PEM of the test run's Apple root: what a stack trusts. */
export function appleRootPem(): string {
  const der = appleChain('PRODUCTION').root.der.toString('base64');
  return `-----BEGIN CERTIFICATE-----\n${der.match(/.{1,64}/g)?.join('\n')}\n-----END CERTIFICATE-----\n`;
}

export interface SignatureOptions {
  signingTime?: Date;
  /** Another chain (an untrusted root, a leaf without Apple's OID). */
  chain?: AppleChain;
}

/** A detached CMS SignedData over `content` with signed attributes, carrying the signing chain, as Apple's is. */
export function cmsSignature(
  content: Buffer,
  environment: Environment,
  options: SignatureOptions = {},
): string {
  const { ca, leaf } = options.chain ?? appleChain(environment);
  const attribute = (type: string, value: Buffer) => sequence(oid(type), set(value));
  const attributes = [
    attribute('1.2.840.113549.1.9.3', oid('1.2.840.113549.1.7.1')),
    attribute('1.2.840.113549.1.9.5', utcTime(options.signingTime ?? new Date())),
    attribute('1.2.840.113549.1.9.4', octetString(createHash('sha256').update(content).digest())),
  ];
  const signed = set(...attributes);
  const signerInfo = sequence(
    integer(1),
    sequence(ca.subject, integer(leaf.serial)),
    sha256,
    contextSpecific(0, ...attributes),
    ecdsaWithSha256,
    octetString(sign('sha256', signed, leaf.key)),
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

// ------------------------------------------------------------------------------------- merchant keys ----

const p256 = () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const pkcs8 = (key: KeyObject) => key.export({ type: 'pkcs8', format: 'pem' }).toString();

/** The test run's keys: Google's root and intermediate signing keys, and the merchant's keys for both wallets. */
const keys = {
  googleRoot: p256(),
  googleIntermediate: p256(),
  googleMerchant: p256(),
  appleMerchant: p256(),
};

export const googleRecipientId = 'gateway:paywire';
export const googleGatewayMerchantId = 'paywire-test-merchant';
export const appleMerchantIdentifier = 'merchant.com.example.paywire';

/** What a stack trusts: the test Google root signing key (keys.json form) and the test Apple root. */
export function testWalletTrustFiles() {
  return {
    googleRootKeys: JSON.stringify({
      keys: [
        {
          keyValue: keys.googleRoot.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
          protocolVersion: 'ECv2',
          keyExpiration: String(Date.now() + 365 * 86_400_000),
        },
      ],
    }),
    appleRootCertificates: appleRootPem(),
  };
}

/** The merchant's wallet keys, as an admin configures them (wallets.configureKeys). */
export function testMerchantWalletKeys(merchantId: number) {
  return {
    merchantId,
    googlePay: {
      recipientId: googleRecipientId,
      gatewayMerchantId: googleGatewayMerchantId,
      privateKeys: [pkcs8(keys.googleMerchant.privateKey)],
    },
    applePay: {
      merchantIdentifier: appleMerchantIdentifier,
      privateKeys: [pkcs8(keys.appleMerchant.privateKey)],
    },
  };
}

/** Another key pair, for a token encrypted for someone else. */
export const strangerKey = () => p256().publicKey;

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
  /** What is encrypted and for whom (production tokens). */
  data?: ApplePaymentDataOptions;
}

export interface ApplePaymentDataOptions {
  /** The device account number inside (default a Visa test number ending 0010). */
  dpan?: string;
  /** YYMMDD. */
  expiration?: string;
  merchantIdentifier?: string;
  merchantPublicKey?: KeyObject;
  signature?: SignatureOptions;
}

/** Encrypts `plain` for the merchant key as EC_v1 does: ECDH, the SP 800-56A KDF, AES-256-GCM. */
function appleEncrypt(plain: Buffer, merchantPublicKey: KeyObject, merchantIdentifier: string) {
  const ephemeral = p256();
  const shared = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: merchantPublicKey });
  const algorithm = Buffer.from('id-aes256-GCM', 'ascii');
  const key = createHash('sha256')
    .update(Buffer.of(0, 0, 0, 1))
    .update(shared)
    .update(Buffer.of(algorithm.length))
    .update(algorithm)
    .update('Apple')
    .update(createHash('sha256').update(merchantIdentifier).digest())
    .digest();
  const cipher = createCipheriv('aes-256-gcm', key, Buffer.alloc(16));
  const data = Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
  return { ephemeral: ephemeral.publicKey.export({ type: 'spki', format: 'der' }), data };
}

/**
 * Apple Pay's paymentData. Production: EC_v1 data encrypted for the merchant's key and identifier, signed by
 * the test chain. TEST: random data signed by the sandbox chain (a dummy Paywire does not open).
 */
export function applePaymentData(environment: Environment = 'TEST', options: ApplePaymentDataOptions = {}) {
  const merchantPublicKey = options.merchantPublicKey ?? keys.appleMerchant.publicKey;
  const plain = Buffer.from(
    JSON.stringify({
      applicationPrimaryAccountNumber: options.dpan ?? '4895370012003478',
      applicationExpirationDate: options.expiration ?? '311231',
      currencyCode: '840',
      transactionAmount: 4210,
      deviceManufacturerIdentifier: '040010030273',
      paymentDataType: '3DSecure',
      paymentData: { onlinePaymentCryptogram: randomBytes(20).toString('base64'), eciIndicator: '5' },
    }),
  );
  const sealed =
    environment === 'PRODUCTION'
      ? appleEncrypt(plain, merchantPublicKey, options.merchantIdentifier ?? appleMerchantIdentifier)
      : { ephemeral: p256().publicKey.export({ type: 'spki', format: 'der' }), data: randomBytes(160) };
  const transactionId = randomBytes(32);
  const header = {
    ephemeralPublicKey: sealed.ephemeral.toString('base64'),
    publicKeyHash: createHash('sha256')
      .update(merchantPublicKey.export({ type: 'spki', format: 'der' }))
      .digest('base64'),
    transactionId: transactionId.toString('hex'),
  };
  return {
    version: 'EC_v1',
    data: sealed.data.toString('base64'),
    signature: cmsSignature(
      Buffer.concat([sealed.ephemeral, sealed.data, transactionId]),
      environment,
      options.signature,
    ),
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
      paymentData: applePaymentData(options.environment, options.data),
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

export interface GoogleTokenOptions {
  /** The card inside (default a Visa test number ending 1111, PAN_ONLY). */
  pan?: string;
  authMethod?: 'PAN_ONLY' | 'CRYPTOGRAM_3DS';
  recipientId?: string;
  gatewayMerchantId?: string;
  merchantPublicKey?: KeyObject;
  /** Milliseconds since the epoch. */
  intermediateExpiration?: number;
  messageExpiration?: number;
  /** Another root signs the intermediate key (one the stack does not trust). */
  rootKey?: KeyObject;
}

const lengthValue = (...parts: string[]) =>
  Buffer.concat(
    parts.flatMap((part) => {
      const bytes = Buffer.from(part, 'utf8');
      const length = Buffer.alloc(4);
      length.writeUInt32LE(bytes.length);
      return [length, bytes];
    }),
  );

/** Google's ECv2 PaymentMethodToken, encrypted for the merchant key and signed through the test root. */
export function googlePaymentMethodToken(options: GoogleTokenOptions = {}): string {
  const authMethod = options.authMethod ?? 'PAN_ONLY';
  const plain = JSON.stringify({
    gatewayMerchantId: options.gatewayMerchantId ?? googleGatewayMerchantId,
    messageExpiration: String(options.messageExpiration ?? Date.now() + 3_600_000),
    messageId: `AH2Ej${randomBytes(24).toString('base64url')}`,
    paymentMethod: 'CARD',
    paymentMethodDetails: {
      expirationYear: 2031,
      expirationMonth: 12,
      pan: options.pan ?? '4111111111111111',
      authMethod,
      ...(authMethod === 'CRYPTOGRAM_3DS'
        ? { cryptogram: randomBytes(20).toString('base64'), eciIndicator: '05' }
        : {}),
    },
  });
  const ephemeral = p256();
  const ephemeralBytes = ephemeral.publicKey.export({ type: 'spki', format: 'der' }).subarray(-65);
  const shared = diffieHellman({
    privateKey: ephemeral.privateKey,
    publicKey: options.merchantPublicKey ?? keys.googleMerchant.publicKey,
  });
  const derived = Buffer.from(
    hkdfSync('sha256', Buffer.concat([ephemeralBytes, shared]), Buffer.alloc(0), 'Google', 64),
  );
  const cipher = createCipheriv('aes-256-ctr', derived.subarray(0, 32), Buffer.alloc(16));
  const encrypted = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  const signedMessage = JSON.stringify({
    encryptedMessage: encrypted.toString('base64'),
    ephemeralPublicKey: ephemeralBytes.toString('base64'),
    tag: createHmac('sha256', derived.subarray(32)).update(encrypted).digest('base64'),
  });
  const signedKey = JSON.stringify({
    keyValue: keys.googleIntermediate.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    keyExpiration: String(options.intermediateExpiration ?? Date.now() + 30 * 86_400_000),
  });
  const recipientId = options.recipientId ?? googleRecipientId;
  return JSON.stringify({
    signature: sign(
      'sha256',
      lengthValue('Google', recipientId, 'ECv2', signedMessage),
      keys.googleIntermediate.privateKey,
    ).toString('base64'),
    intermediateSigningKey: {
      signedKey,
      signatures: [
        sign(
          'sha256',
          lengthValue('Google', 'ECv2', signedKey),
          options.rootKey ?? keys.googleRoot.privateKey,
        ).toString('base64'),
      ],
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
  /** What the production token holds and how it is signed (default: the card ending in cardDetails). */
  tokenOptions?: GoogleTokenOptions;
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
        options.token ??
        (environment === 'TEST'
          ? 'examplePaymentMethodToken'
          : googlePaymentMethodToken({ pan: `411111111111${cardDetails}`, ...options.tokenOptions })),
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
