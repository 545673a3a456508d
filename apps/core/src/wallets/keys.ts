import { createPrivateKey, createPublicKey, type KeyObject, X509Certificate } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { type ConfigureWalletKeysInput, DomainError, type WalletKeysView } from '@paywire/contracts';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized } from '../db/wire.ts';
import { type AuditOrigin, recordAudit } from '../security/audit/trail.ts';
import { bindings, type CardVault } from '../security/card-vault.ts';
import type { AppleRecipient } from './apple-pay-crypto.ts';
import { type GoogleRecipient, type GoogleRootKey, googleRootKeySet } from './google-pay-crypto.ts';
import { deleteWalletKeys, selectWalletKeys, upsertWalletKeys } from './queries.ts';

/**
 * What production wallet tokens are checked against. The roots are the deployment's (Google's published root
 * signing keys, Apple's root certificate: public, the same for every merchant); the keys that open a token
 * are each merchant's, stored sealed by the card vault.
 */
export interface WalletTrust {
  googleRootKeys: GoogleRootKey[];
  appleRootCertificates: X509Certificate[];
}

export const noWalletTrust: WalletTrust = { googleRootKeys: [], appleRootCertificates: [] };

/** Google's keys.json text (`{"keys":[{keyValue, protocolVersion, keyExpiration}]}`) as root keys. */
export function parseGoogleRootKeys(json: string): GoogleRootKey[] {
  const parsed = googleRootKeySet.parse(JSON.parse(json));
  // A key that cannot be read is a configuration error at start, not a 400 for every token later.
  for (const key of parsed.keys)
    createPublicKey({ key: Buffer.from(key.keyValue, 'base64'), format: 'der', type: 'spki' });
  return parsed.keys.map((key) => ({
    keyValue: key.keyValue,
    protocolVersion: key.protocolVersion,
    ...(key.keyExpiration ? { keyExpiration: key.keyExpiration } : {}),
  }));
}

/** Every certificate of a PEM bundle. */
export function parsePemCertificates(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => new X509Certificate(block));
}

/** The keys one merchant's production tokens are opened with. */
export interface MerchantWalletKeys {
  googlePay?: GoogleRecipient & { gatewayMerchantId?: string };
  applePay?: AppleRecipient;
}

/** What the vault seals: the input's keys as given, and whose they are. */
interface SealedKeys {
  merchantId: number;
  googlePay: { recipientId: string; gatewayMerchantId?: string; privateKeys: string[] } | null;
  applePay: { merchantIdentifier: string; privateKeys: string[] } | null;
}

function privateKeyOf(text: string): KeyObject {
  const pem = text.includes('-----BEGIN');
  return pem
    ? createPrivateKey(text)
    : createPrivateKey({ key: Buffer.from(text, 'base64'), format: 'der', type: 'pkcs8' });
}

/** A P-256 private key, or a 400 naming the property (never its value). */
function checkedKey(text: string, property: string): KeyObject {
  let key: KeyObject;
  try {
    key = privateKeyOf(text);
  } catch {
    throw new DomainError('VALIDATION_GENERAL_FAILURE', `${property}: is not a PKCS #8 private key`, {
      name: property,
    });
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1')
    throw new DomainError('VALIDATION_GENERAL_FAILURE', `${property}: must be an EC P-256 key`, {
      name: property,
    });
  return key;
}

function viewOf(merchantId: number, sealed: SealedKeys | null): WalletKeysView {
  return {
    merchantId,
    googlePay: sealed?.googlePay
      ? {
          recipientId: sealed.googlePay.recipientId,
          gatewayMerchantId: sealed.googlePay.gatewayMerchantId ?? null,
          keys: sealed.googlePay.privateKeys.length,
        }
      : null,
    applePay: sealed?.applePay
      ? { merchantIdentifier: sealed.applePay.merchantIdentifier, keys: sealed.applePay.privateKeys.length }
      : null,
  };
}

async function readSealed(
  em: EntityManager,
  vault: CardVault,
  merchantId: number,
): Promise<SealedKeys | null> {
  const [row] = await executeParameterized<{ sealed_keys: string }>(em, selectWalletKeys, [merchantId]);
  if (!row) return null;
  const sealed = JSON.parse(vault.open(row.sealed_keys, bindings.walletKeys(merchantId))) as SealedKeys;
  if (sealed.merchantId !== merchantId)
    throw new Error(`merchant ${merchantId}: its wallet keys were sealed for another merchant`);
  return sealed;
}

/** Stores a merchant's wallet keys (admin callers): each key is checked to be a P-256 private key first. */
export function configureWalletKeys(
  em: EntityManager,
  vault: CardVault,
  input: ConfigureWalletKeysInput,
  origin: AuditOrigin,
): Promise<WalletKeysView> {
  const { merchantId } = input;
  for (const [wallet, keys] of [
    ['googlePay', input.googlePay?.privateKeys ?? []],
    ['applePay', input.applePay?.privateKeys ?? []],
  ] as const) {
    for (const [i, key] of keys.entries()) checkedKey(key, `${wallet}.privateKeys.${i}`);
  }
  return inTransaction(em, async (em) => {
    const [merchant] = await executeParameterized(em, 'select 1 from "merchant" where "id" = $1', [
      merchantId,
    ]);
    if (!merchant)
      throw new DomainError('VALIDATION_GENERAL_FAILURE', 'merchantId: no such merchant', {
        name: 'merchantId',
        messageValue: String(merchantId),
      });
    const current = await readSealed(em, vault, merchantId);
    const google = input.googlePay === undefined ? (current?.googlePay ?? null) : input.googlePay;
    const sealed: SealedKeys = {
      merchantId,
      googlePay: google
        ? {
            recipientId: google.recipientId,
            ...(google.gatewayMerchantId ? { gatewayMerchantId: google.gatewayMerchantId } : {}),
            privateKeys: google.privateKeys,
          }
        : null,
      applePay: input.applePay === undefined ? (current?.applePay ?? null) : input.applePay,
    };
    if (!sealed.googlePay && !sealed.applePay) await executeParameterized(em, deleteWalletKeys, [merchantId]);
    else
      await executeParameterized(em, upsertWalletKeys, [
        merchantId,
        vault.seal(JSON.stringify(sealed), bindings.walletKeys(merchantId)),
      ]);
    await recordAudit(em, origin, {
      merchantId,
      action: 'wallet-keys.configure',
      object: `merchant:${merchantId}`,
      outcome: 'success',
    });
    return viewOf(merchantId, sealed);
  });
}

/** The merchant's configured wallets, without their keys. */
export async function walletKeysView(
  em: EntityManager,
  vault: CardVault,
  merchantId: number,
): Promise<WalletKeysView> {
  return viewOf(merchantId, await readSealed(em, vault, merchantId));
}

/** The keys a merchant's production tokens are opened with; read when a production token arrives. */
export async function merchantWalletKeys(
  em: EntityManager,
  vault: CardVault,
  merchantId: number,
): Promise<MerchantWalletKeys> {
  const sealed = await readSealed(em, vault, merchantId);
  if (!sealed) return {};
  const { googlePay, applePay } = sealed;
  return {
    ...(googlePay
      ? {
          googlePay: {
            recipientId: googlePay.recipientId,
            ...(googlePay.gatewayMerchantId ? { gatewayMerchantId: googlePay.gatewayMerchantId } : {}),
            privateKeys: googlePay.privateKeys.map(privateKeyOf),
          },
        }
      : {}),
    ...(applePay
      ? {
          applePay: {
            merchantIdentifier: applePay.merchantIdentifier,
            privateKeys: applePay.privateKeys.map(privateKeyOf),
          },
        }
      : {}),
  };
}

declare module '../context.ts' {
  interface CoreServices {
    /** The roots production wallet tokens are verified against (Google's root signing keys, Apple's root). */
    walletTrust: WalletTrust;
  }
}
