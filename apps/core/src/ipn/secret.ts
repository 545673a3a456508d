import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { executePrepared } from '../db/wire.ts';
import { readIpnSecret, readIpnSecrets, replaceIpnSecret, setFirstIpnSecret } from './queries.ts';

/** A Standard Webhooks secret: "whsec_" and 24 random bytes in base64. */
const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

// Parameters only ($n): the secret never appears in a statement's text (logs, pg_stat_statements).
const read = (em: EntityManager, merchantId: number) =>
  executePrepared<{ ipn_secret: string | null }>(em, readIpnSecret, [merchantId]);

/**
 * The merchant's IPN secret, made on first use. Read first and written only while still empty: an update
 * on every event would lock the merchant's row until commit and serialise all of its sales.
 */
export async function ipnSecret(em: EntityManager, merchantId: number): Promise<string> {
  const [known] = await read(em, merchantId);
  if (known?.ipn_secret) return known.ipn_secret;
  await executePrepared(em, setFirstIpnSecret, [newSecret(), merchantId]);
  const [made] = await read(em, merchantId);
  if (!made?.ipn_secret) throw new Error(`merchant ${merchantId} not found`);
  return made.ipn_secret; // ours, or the one a concurrent first use wrote
}

/** The secrets of several merchants in one statement: a delivery batch reads each merchant's once. */
export async function ipnSecrets(em: EntityManager, merchantIds: number[]): Promise<Map<number, string>> {
  const rows = await executePrepared<{ id: number; ipn_secret: string | null }>(em, readIpnSecrets, [
    merchantIds,
  ]);
  const secrets = new Map<number, string>();
  for (const row of rows) secrets.set(row.id, row.ipn_secret ?? (await ipnSecret(em, row.id)));
  return secrets;
}

/** Replaces the secret: deliveries from now on are signed with the new one. */
export async function rotateIpnSecret(em: EntityManager, merchantId: number): Promise<string> {
  const secret = newSecret();
  await executePrepared(em, replaceIpnSecret, [secret, merchantId]);
  return secret;
}
