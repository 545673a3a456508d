import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { executeParameterized, executePrepared } from '../db/wire.ts';
import { bindings, type CardVault } from '../security/card-vault.ts';
import {
  dropRetiringIpnSecrets,
  insertFirstIpnSecret,
  insertIpnSecret,
  lockSecretsOf,
  nextIpnSecretId,
  plainIpnSecrets,
  readIpnSecret,
  retireIpnSecret,
  signingIpnSecrets,
} from './queries.ts';

/**
 * IPN secrets (docs/security.md, IPN secrets): sealed by the card vault, bound to merchant, table and the
 * secret's own id, so a rotation of the data keys re-encrypts them with the cards and a row copied to another
 * merchant opens for no one. Parameters only ($n): no secret appears in a statement's text.
 */

/** A Standard Webhooks secret: "whsec_" and 24 random bytes in base64. */
const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/** After a rotation the previous secret still signs deliveries, beside the new one, for this long. */
export const rotationOverlapSeconds = 24 * 60 * 60;

/** A sealed secret as stored: its id is its binding. */
export interface SealedSecret {
  id: string;
  sealed: string;
}

export const openSecret = (vault: CardVault, merchantId: number, secret: SealedSecret): string =>
  vault.open(secret.sealed, bindings.ipnSecret(merchantId, secret.id));

async function sealedNew(em: EntityManager, vault: CardVault, merchantId: number, secret: string) {
  const [row] = await executeParameterized<{ id: string }>(em, nextIpnSecretId, []);
  const id = String(row?.id);
  return { id, sealed: vault.seal(secret, bindings.ipnSecret(merchantId, id)) };
}

/**
 * The merchant's IPN secret, made on first use (or sealed from the plain secret kept before 0029-retention).
 * Read first and written only while none is sealed: a write on every event would serialise the merchant's sales.
 */
export async function ipnSecret(em: EntityManager, vault: CardVault, merchantId: number): Promise<string> {
  const read = async () => {
    const [row] = await executePrepared<{
      id: string | null;
      sealed_secret: string | null;
      plain: string | null;
    }>(em, readIpnSecret, [merchantId]);
    if (!row) throw new Error(`merchant ${merchantId} not found`);
    return row;
  };
  const known = await read();
  if (known.id && known.sealed_secret)
    return openSecret(vault, merchantId, { id: known.id, sealed: known.sealed_secret });
  const first = await sealedNew(em, vault, merchantId, known.plain ?? newSecret());
  await executeParameterized(em, insertFirstIpnSecret, [first.id, merchantId, first.sealed]);
  const made = await read();
  if (!made.id || !made.sealed_secret) throw new Error(`merchant ${merchantId}: no IPN secret was stored`);
  return openSecret(vault, merchantId, { id: made.id, sealed: made.sealed_secret }); // ours, or a concurrent one's
}

/**
 * The secrets that sign each merchant's deliveries now, in one statement for a delivery batch: the current
 * one first, then the previous one while its rotation's overlap lasts. A merchant with none gets one.
 */
export async function signingSecrets(
  em: EntityManager,
  vault: CardVault,
  merchantIds: number[],
): Promise<Map<number, string[]>> {
  const rows = await executePrepared<{ merchant_id: number; id: string; sealed_secret: string }>(
    em,
    signingIpnSecrets,
    [merchantIds],
  );
  const secrets = new Map<number, string[]>();
  for (const row of rows) {
    const secret = openSecret(vault, row.merchant_id, { id: row.id, sealed: row.sealed_secret });
    secrets.set(row.merchant_id, [...(secrets.get(row.merchant_id) ?? []), secret]);
  }
  for (const merchantId of merchantIds)
    if (!secrets.has(merchantId)) secrets.set(merchantId, [await ipnSecret(em, vault, merchantId)]);
  return secrets;
}

/**
 * Replaces the secret (in the caller's transaction): deliveries are signed with the new one from now on, and
 * with the previous one beside it for `rotationOverlapSeconds`, so a receiver can switch without a gap.
 */
export async function rotateIpnSecret(
  em: EntityManager,
  vault: CardVault,
  merchantId: number,
): Promise<string> {
  await executeParameterized(em, lockSecretsOf, [merchantId]); // concurrent rotations take turns
  await ipnSecret(em, vault, merchantId); // a plain or missing secret becomes a sealed current one first
  const secret = newSecret();
  const next = await sealedNew(em, vault, merchantId, secret);
  await executeParameterized(em, dropRetiringIpnSecrets, [merchantId]);
  await executeParameterized(em, retireIpnSecret, [merchantId, rotationOverlapSeconds]);
  await executeParameterized(em, insertIpnSecret, [next.id, merchantId, next.sealed]);
  return secret;
}

/** Seals every secret still in plain text (a worker's start after 0029-retention); how many. */
export async function sealPlainIpnSecrets(em: EntityManager, vault: CardVault): Promise<number> {
  const rows = await executeParameterized<{ id: number }>(em, plainIpnSecrets, []);
  for (const row of rows) await em.transactional((tx) => ipnSecret(tx, vault, row.id));
  return rows.length;
}
