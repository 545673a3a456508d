import type { WalletInput } from '@paywire/contracts';
import { decodeApplePay } from './apple-pay.ts';
import { decodeGooglePay } from './google-pay.ts';
import { type DecodedWalletToken, invalidToken } from './token.ts';

/**
 * encodedPaymentToken as the interface builds it (docs/conformance.md, Wallet tokens): the wallet's payment data as UTF-8 JSON, base-64 encoded
 * with the standard alphabet (web) or the URL-safe one without line wrapping (mobile apps). Padding is
 * optional in both; line breaks a client library may add are ignored; a mix of the two alphabets is not
 * base-64.
 */
export function decodeBase64Json(encoded: string): unknown {
  const compact = encoded.replace(/[\r\n\t ]/g, '');
  const standard = /^[A-Za-z0-9+/]*={0,2}$/.test(compact);
  const urlSafe = /^[A-Za-z0-9_-]*={0,2}$/.test(compact);
  const unpadded = compact.replace(/=+$/, '');
  const padded = compact.length !== unpadded.length;
  if ((!standard && !urlSafe) || unpadded.length % 4 === 1 || (padded && compact.length % 4 !== 0))
    throw invalidToken('is not base-64');
  const bytes = Buffer.from(unpadded, standard ? 'base64' : 'base64url');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw invalidToken('is not base-64 encoded UTF-8 text');
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // The parser's message quotes the input: it is payment data, so it is never passed on.
    throw invalidToken('does not decode to JSON');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw invalidToken('does not decode to a JSON object');
  return json;
}

/** Decodes a wallet token into the card it pays with and its sealed payment data. Pure: no I/O. */
export function decodeWalletToken(wallet: WalletInput): DecodedWalletToken {
  const json = decodeBase64Json(wallet.encodedPaymentToken);
  return wallet.walletType === 'GOOGLE_PAY' ? decodeGooglePay(json) : decodeApplePay(json);
}
