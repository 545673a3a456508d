import { X509Certificate } from 'node:crypto';

/**
 * Just enough DER to find the certificates inside a CMS/PKCS #7 SignedData (RFC 5652), the form of an Apple
 * Pay token's `signature`. Every length is checked against the bytes that are there, so hostile input
 * fails with MalformedSignature and never reads out of bounds.
 */

export class MalformedSignature extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'MalformedSignature';
  }
}

interface Element {
  tag: number;
  /** The whole element, header included. */
  start: number;
  /** Its contents. */
  from: number;
  to: number;
  /** Where the next element starts: `to`, or after the end-of-contents octets of an indefinite length. */
  end: number;
}

/** Nesting deeper than any SignedData needs is refused, so hostile input cannot exhaust the stack. */
const maxDepth = 24;

/**
 * One element. Apple writes its SignedData in BER with indefinite lengths for the outer constructed
 * elements (contents closed by two zero octets); everything inside (certificates, signed attributes) is DER.
 */
function readElement(der: Uint8Array, at: number, end: number, depth = 0): Element {
  if (depth > maxDepth) throw new MalformedSignature('nested too deeply');
  if (at + 2 > end) throw new MalformedSignature('truncated element');
  const tag = der[at] as number;
  if ((tag & 0x1f) === 0x1f) throw new MalformedSignature('multi-byte tags are not used here');
  let length = der[at + 1] as number;
  let from = at + 2;
  if (length === 0x80) {
    if (!(tag & 0x20)) throw new MalformedSignature('an indefinite length on a primitive element');
    let next = from;
    while (!(der[next] === 0 && der[next + 1] === 0)) {
      if (next + 2 > end) throw new MalformedSignature('no end-of-contents octets');
      next = readElement(der, next, end, depth + 1).end;
    }
    return { tag, start: at, from, to: next, end: next + 2 };
  }
  if (length & 0x80) {
    const octets = length & 0x7f;
    if (octets > 4 || from + octets > end) throw new MalformedSignature('bad length');
    length = 0;
    for (let i = 0; i < octets; i++) length = length * 256 + (der[from + i] as number);
    from += octets;
  }
  if (from + length > end) throw new MalformedSignature('element runs past its parent');
  return { tag, start: at, from, to: from + length, end: from + length };
}

function children(der: Uint8Array, parent: Element): Element[] {
  const list: Element[] = [];
  for (let at = parent.from; at < parent.to; ) {
    const child = readElement(der, at, parent.to);
    list.push(child);
    at = child.end;
  }
  return list;
}

const SEQUENCE = 0x30;
const OID = 0x06;
const CONTEXT_0 = 0xa0;
/** 1.2.840.113549.1.7.2, id-signedData. */
const signedDataOid = Uint8Array.of(0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02);

function sameBytes(der: Uint8Array, element: Element, bytes: Uint8Array): boolean {
  if (element.to - element.from !== bytes.length) return false;
  return bytes.every((byte, i) => der[element.from + i] === byte);
}

/** The certificates a SignedData carries, in document order. */
export function signedDataCertificates(der: Uint8Array): X509Certificate[] {
  const contentInfo = readElement(der, 0, der.length);
  if (contentInfo.tag !== SEQUENCE || contentInfo.end !== der.length)
    throw new MalformedSignature('not a ContentInfo');
  const [type, explicit] = children(der, contentInfo);
  if (!type || type.tag !== OID || !sameBytes(der, type, signedDataOid))
    throw new MalformedSignature('not SignedData');
  if (!explicit || explicit.tag !== CONTEXT_0) throw new MalformedSignature('no SignedData content');
  const [signedData] = children(der, explicit);
  if (!signedData || signedData.tag !== SEQUENCE)
    throw new MalformedSignature('SignedData is not a SEQUENCE');
  // version, digestAlgorithms, encapContentInfo, then [0] IMPLICIT certificates when present.
  const certificates = children(der, signedData)
    .slice(3)
    .find((element) => element.tag === CONTEXT_0);
  if (!certificates) return [];
  return children(der, certificates)
    .filter((element) => element.tag === SEQUENCE)
    .map((element) => {
      try {
        return new X509Certificate(der.subarray(element.start, element.end));
      } catch {
        throw new MalformedSignature('a certificate cannot be read');
      }
    });
}

/** The common names of a certificate's subject (`CN=...` lines of node's one-attribute-per-line form). */
export function commonNames(certificate: X509Certificate): string[] {
  return certificate.subject
    .split('\n')
    .filter((line) => line.startsWith('CN='))
    .map((line) => line.slice(3));
}

const SET = 0x31;
const INTEGER = 0x02;
const OCTET_STRING = 0x04;
const UTC_TIME = 0x17;
const GENERALIZED_TIME = 0x18;
const CONTEXT_3 = 0xa3;

/** The DER contents octets of an OBJECT IDENTIFIER in dotted form. */
export function oidBytes(dotted: string): Uint8Array {
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
  return Uint8Array.from(bytes);
}

const attributeOids = {
  contentType: oidBytes('1.2.840.113549.1.9.3'),
  messageDigest: oidBytes('1.2.840.113549.1.9.4'),
  signingTime: oidBytes('1.2.840.113549.1.9.5'),
};
const dataOid = oidBytes('1.2.840.113549.1.7.1');

/** The one signer of a detached SignedData, as far as checking its signature needs. */
export interface DetachedSigner {
  /** The signer's serial number, hex, upper case without leading zeros (as X509Certificate writes it). */
  serialNumber: string;
  /** The signed attributes as DER, re-tagged as the SET OF that the signature covers (RFC 5652, 5.4). */
  signedAttributes: Buffer;
  messageDigest: Buffer;
  signingTime: Date;
  signature: Buffer;
}

function readTime(der: Uint8Array, element: Element): Date {
  const text = Buffer.from(der.subarray(element.from, element.to)).toString('ascii');
  const match =
    element.tag === UTC_TIME
      ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(text)
      : element.tag === GENERALIZED_TIME
        ? /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(text)
        : null;
  if (!match) throw new MalformedSignature('signing time is not a UTC time');
  const [, y = '', mo = '', d = '', h = '', mi = '', s = ''] = match;
  const year = y.length === 2 ? (Number(y) < 50 ? 2000 + Number(y) : 1900 + Number(y)) : Number(y);
  return new Date(Date.UTC(year, Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)));
}

/**
 * The single SignerInfo of a SignedData whose content is detached (no eContent), with its signed
 * attributes: Apple Pay's form. Anything else is MalformedSignature.
 */
export function detachedSigner(der: Uint8Array): DetachedSigner {
  const contentInfo = readElement(der, 0, der.length);
  const [, explicit] = children(der, contentInfo);
  const [signedData] = explicit ? children(der, explicit) : [];
  if (!signedData) throw new MalformedSignature('no SignedData content');
  const parts = children(der, signedData);
  const encapsulated = parts[2];
  if (!encapsulated || encapsulated.tag !== SEQUENCE) throw new MalformedSignature('no content info');
  const [contentType, content] = children(der, encapsulated);
  if (!contentType || !sameBytes(der, contentType, dataOid))
    throw new MalformedSignature('content is not data');
  if (content) throw new MalformedSignature('the content is not detached');
  const signerInfos = parts.at(-1);
  if (!signerInfos || signerInfos.tag !== SET) throw new MalformedSignature('no signer infos');
  const signers = children(der, signerInfos);
  if (signers.length !== 1 || signers[0]?.tag !== SEQUENCE) throw new MalformedSignature('not one signer');
  const [version, sid, , attributes, , signature] = children(der, signers[0]);
  if (!version || version.tag !== INTEGER || !sid || sid.tag !== SEQUENCE)
    throw new MalformedSignature('the signer is not named by issuer and serial number');
  const [, serial] = children(der, sid);
  if (!serial || serial.tag !== INTEGER) throw new MalformedSignature('no signer serial number');
  if (!attributes || attributes.tag !== CONTEXT_0) throw new MalformedSignature('no signed attributes');
  if (!signature || signature.tag !== OCTET_STRING) throw new MalformedSignature('no signature');

  let messageDigest: Buffer | undefined;
  let signingTime: Date | undefined;
  let contentTypeSeen = false;
  for (const attribute of children(der, attributes)) {
    const [type, values] = children(der, attribute);
    if (!type || type.tag !== OID || !values || values.tag !== SET)
      throw new MalformedSignature('bad attribute');
    const [value] = children(der, values);
    if (!value) throw new MalformedSignature('an attribute has no value');
    if (sameBytes(der, type, attributeOids.contentType)) contentTypeSeen = sameBytes(der, value, dataOid);
    else if (sameBytes(der, type, attributeOids.messageDigest) && value.tag === OCTET_STRING)
      messageDigest = Buffer.from(der.subarray(value.from, value.to));
    else if (sameBytes(der, type, attributeOids.signingTime)) signingTime = readTime(der, value);
  }
  if (!contentTypeSeen || !messageDigest || !signingTime)
    throw new MalformedSignature('the signed attributes lack content type, message digest or signing time');
  if (attributes.end !== attributes.to) throw new MalformedSignature('signed attributes must be DER');
  const signedAttributes = Buffer.from(der.subarray(attributes.start, attributes.end));
  signedAttributes[0] = SET;
  const serialHex = Buffer.from(der.subarray(serial.from, serial.to))
    .toString('hex')
    .replace(/^(00)+(?=.)/, '')
    .toUpperCase();
  return {
    serialNumber: serialHex,
    signedAttributes,
    messageDigest,
    signingTime,
    signature: Buffer.from(der.subarray(signature.from, signature.to)),
  };
}

/** Whether a certificate carries an extension of this OID (tbsCertificate's [3] extensions). */
export function hasExtension(certificate: X509Certificate, dotted: string): boolean {
  const der = new Uint8Array(certificate.raw);
  const wanted = oidBytes(dotted);
  try {
    const [tbs] = children(der, readElement(der, 0, der.length));
    if (!tbs) return false;
    const extensions = children(der, tbs).find((element) => element.tag === CONTEXT_3);
    const [list] = extensions ? children(der, extensions) : [];
    if (!list) return false;
    return children(der, list).some((extension) => {
      const [type] = children(der, extension);
      return type !== undefined && type.tag === OID && sameBytes(der, type, wanted);
    });
  } catch (error) {
    if (error instanceof MalformedSignature) return false;
    throw error;
  }
}
