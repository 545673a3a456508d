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
}

function readElement(der: Uint8Array, at: number, end: number): Element {
  if (at + 2 > end) throw new MalformedSignature('truncated element');
  const tag = der[at] as number;
  if ((tag & 0x1f) === 0x1f) throw new MalformedSignature('multi-byte tags are not used here');
  let length = der[at + 1] as number;
  let from = at + 2;
  if (length & 0x80) {
    const octets = length & 0x7f;
    if (octets === 0 || octets > 4 || from + octets > end) throw new MalformedSignature('bad length');
    length = 0;
    for (let i = 0; i < octets; i++) length = length * 256 + (der[from + i] as number);
    from += octets;
  }
  if (from + length > end) throw new MalformedSignature('element runs past its parent');
  return { tag, start: at, from, to: from + length };
}

function children(der: Uint8Array, parent: Element): Element[] {
  const list: Element[] = [];
  for (let at = parent.from; at < parent.to; ) {
    const child = readElement(der, at, parent.to);
    list.push(child);
    at = child.to;
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
  if (contentInfo.tag !== SEQUENCE || contentInfo.to !== der.length)
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
        return new X509Certificate(der.subarray(element.start, element.to));
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
