import {
  createDecipheriv,
  createHash,
  createPublicKey,
  diffieHellman,
  type KeyObject,
  timingSafeEqual,
  verify,
  type X509Certificate,
} from 'node:crypto';
import { z } from 'zod';
import { detachedSigner, hasExtension, MalformedSignature, signedDataCertificates } from './pkcs7.ts';
import { WalletTokenRejected } from './token.ts';

/**
 * Apple Pay's EC_v1 payment data, as Apple's "Payment token format reference" defines it:
 * - the signature is a detached CMS SignedData over ephemeralPublicKey || data || transactionId ||
 *   applicationData (the last two hex-decoded), signed by a leaf certificate carrying Apple's leaf OID,
 *   issued by an intermediate carrying Apple's intermediate OID, issued by a configured Apple root; its
 *   signing time is recent;
 * - the data is decrypted with the merchant's payment processing key: ECDH with the ephemeral public key,
 *   the single-step KDF of NIST SP 800-56A (SHA-256, counter 1, other info = 0x0D "id-aes256-GCM" "Apple"
 *   SHA-256(merchant identifier)), AES-256-GCM with a zero 16-byte IV and the last 16 bytes as the tag.
 */

/** 1.2.840.113635.100.6.29: Apple's payment processing signing (leaf) certificate. */
export const appleLeafOid = '1.2.840.113635.100.6.29';
/** 1.2.840.113635.100.6.2.14: Apple Application Integration CA (intermediate). */
export const appleIntermediateOid = '1.2.840.113635.100.6.2.14';

/** How old a signature may be, and how far ahead of our clock a signing time may be. */
export const signatureMaxAgeMs = 15 * 60_000;
export const clockSkewMs = 5 * 60_000;

export interface AppleRecipient {
  /** The merchant identifier registered with Apple (e.g. merchant.com.example). */
  merchantIdentifier: string;
  /** Payment processing private keys (P-256); the header's publicKeyHash picks one. */
  privateKeys: KeyObject[];
}

export interface ApplePaymentData {
  version: string;
  data: string;
  signature: string;
  header: {
    ephemeralPublicKey?: string | undefined;
    publicKeyHash: string;
    transactionId: string;
    applicationData?: string | undefined;
  };
}

export interface AppleDecryptedData {
  /** The device account number. */
  applicationPrimaryAccountNumber: string;
  /** YYMMDD. */
  applicationExpirationDate: string;
  currencyCode?: string;
  transactionAmount?: number;
  paymentDataType: string;
  cryptogram?: string;
  eciIndicator?: string;
}

const decrypted = z.object({
  applicationPrimaryAccountNumber: z.string().regex(/^\d{12,19}$/),
  applicationExpirationDate: z.string().regex(/^\d{6}$/),
  currencyCode: z.string().optional(),
  transactionAmount: z.number().optional(),
  paymentDataType: z.string().min(1),
  paymentData: z
    .object({ onlinePaymentCryptogram: z.string().optional(), eciIndicator: z.string().optional() })
    .optional(),
});

const base64 = (text: string, what: string) => {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new WalletTokenRejected(`${what} is not base-64`);
  return Buffer.from(text, 'base64');
};

const hex = (text: string, what: string) => {
  if (!/^([0-9a-fA-F]{2})*$/.test(text)) throw new WalletTokenRejected(`${what} is not hex`);
  return Buffer.from(text, 'hex');
};

const withoutLeadingZeros = (serial: string) => serial.toUpperCase().replace(/^0+(?=.)/, '');

/** Checks the signature and its chain against the configured roots; returns nothing, throws on failure. */
export function verifyAppleSignature(
  paymentData: ApplePaymentData,
  roots: readonly X509Certificate[],
  now: Date,
): void {
  if (roots.length === 0) throw new WalletTokenRejected('no Apple root certificate is configured');
  const ephemeral = paymentData.header.ephemeralPublicKey;
  if (paymentData.version !== 'EC_v1' || !ephemeral)
    throw new WalletTokenRejected('only EC_v1 payment data is accepted');
  const der = base64(paymentData.signature, 'the signature');
  let certificates: X509Certificate[];
  let signer: ReturnType<typeof detachedSigner>;
  try {
    certificates = signedDataCertificates(der);
    signer = detachedSigner(der);
  } catch (error) {
    if (error instanceof MalformedSignature)
      throw new WalletTokenRejected('the signature is not a CMS signature');
    throw error;
  }
  const leaf = certificates.find((certificate) => hasExtension(certificate, appleLeafOid));
  const intermediate = certificates.find((certificate) => hasExtension(certificate, appleIntermediateOid));
  if (!leaf || !intermediate)
    throw new WalletTokenRejected("the signature does not carry Apple's leaf and intermediate certificates");
  if (withoutLeadingZeros(leaf.serialNumber) !== withoutLeadingZeros(signer.serialNumber))
    throw new WalletTokenRejected('the signature is not made by the leaf certificate');

  // The chain: leaf <- intermediate <- a configured root, each valid now.
  const issuedBy = (child: X509Certificate, parent: X509Certificate) =>
    child.checkIssued(parent) && child.verify(parent.publicKey);
  const root = roots.find((candidate) => issuedBy(intermediate, candidate));
  if (!intermediate.ca || !issuedBy(leaf, intermediate) || !root)
    throw new WalletTokenRejected('the signing certificates do not chain to a configured Apple root');
  for (const certificate of [leaf, intermediate, root]) {
    if (new Date(certificate.validFrom) > now || new Date(certificate.validTo) < now)
      throw new WalletTokenRejected('a signing certificate is not valid now');
  }

  // The signed content, its digest in the signed attributes, and the signature over those attributes.
  const content = Buffer.concat([
    base64(ephemeral, 'the ephemeral public key'),
    base64(paymentData.data, 'the data'),
    hex(paymentData.header.transactionId, 'the transaction id'),
    hex(paymentData.header.applicationData ?? '', 'the application data'),
  ]);
  const digest = createHash('sha256').update(content).digest();
  if (digest.length !== signer.messageDigest.length || !timingSafeEqual(digest, signer.messageDigest))
    throw new WalletTokenRejected('the signature does not cover this payment data');
  let valid = false;
  try {
    valid = verify('sha256', signer.signedAttributes, leaf.publicKey, signer.signature);
  } catch {
    valid = false;
  }
  if (!valid) throw new WalletTokenRejected('the signature is not valid');
  const age = now.getTime() - signer.signingTime.getTime();
  if (age > signatureMaxAgeMs || age < -clockSkewMs)
    throw new WalletTokenRejected('the signing time is outside the accepted window');
}

/** The symmetric key: NIST SP 800-56A concatenation KDF with SHA-256, one round (256 bits). */
function symmetricKey(sharedSecret: Buffer, merchantIdentifier: string): Buffer {
  const algorithm = Buffer.from('id-aes256-GCM', 'ascii');
  const otherInfo = Buffer.concat([
    Buffer.of(algorithm.length),
    algorithm,
    Buffer.from('Apple', 'ascii'),
    createHash('sha256').update(merchantIdentifier, 'utf8').digest(),
  ]);
  return createHash('sha256')
    .update(Buffer.of(0, 0, 0, 1))
    .update(sharedSecret)
    .update(otherInfo)
    .digest();
}

const publicKeyHash = (key: KeyObject) =>
  createHash('sha256')
    .update(createPublicKey(key).export({ type: 'spki', format: 'der' }))
    .digest('base64');

/** Decrypts verified EC_v1 payment data with the merchant's key the header names. */
export function decryptApplePaymentData(
  paymentData: ApplePaymentData,
  recipient: AppleRecipient,
): AppleDecryptedData {
  const privateKey = recipient.privateKeys.find(
    (key) => publicKeyHash(key) === paymentData.header.publicKeyHash,
  );
  if (!privateKey) throw new WalletTokenRejected("the payment data is not encrypted for the merchant's keys");
  let ephemeral: KeyObject;
  try {
    ephemeral = createPublicKey({
      key: base64(paymentData.header.ephemeralPublicKey ?? '', 'the ephemeral public key'),
      format: 'der',
      type: 'spki',
    });
  } catch (error) {
    if (error instanceof WalletTokenRejected) throw error;
    throw new WalletTokenRejected('the ephemeral public key cannot be read');
  }
  let plain: Buffer;
  try {
    const shared = diffieHellman({ privateKey, publicKey: ephemeral });
    const sealed = base64(paymentData.data, 'the data');
    if (sealed.length < 17) throw new Error('too short');
    const decipher = createDecipheriv(
      'aes-256-gcm',
      symmetricKey(shared, recipient.merchantIdentifier),
      Buffer.alloc(16),
    );
    decipher.setAuthTag(sealed.subarray(-16));
    plain = Buffer.concat([decipher.update(sealed.subarray(0, -16)), decipher.final()]);
  } catch (error) {
    if (error instanceof WalletTokenRejected) throw error;
    throw new WalletTokenRejected('the payment data cannot be decrypted for this merchant');
  }
  let json: unknown;
  try {
    json = JSON.parse(plain.toString('utf8'));
  } catch {
    throw new WalletTokenRejected('the decrypted payment data is not JSON');
  }
  const result = decrypted.safeParse(json);
  if (!result.success) throw new WalletTokenRejected('the decrypted payment data is not in the EC_v1 form');
  const { paymentData: secure, ...card } = result.data;
  return {
    ...card,
    ...(secure?.onlinePaymentCryptogram ? { cryptogram: secure.onlinePaymentCryptogram } : {}),
    ...(secure?.eciIndicator ? { eciIndicator: secure.eciIndicator } : {}),
  };
}
