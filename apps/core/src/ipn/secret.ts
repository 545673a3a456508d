import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';

/** A Standard Webhooks secret: "whsec_" and 24 random bytes in base64. */
const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/** The merchant's IPN secret, made on first use (concurrent first uses agree on one). */
export async function ipnSecret(em: EntityManager, merchantId: number): Promise<string> {
  const rows = await em.execute<{ ipn_secret: string }[]>(
    'update merchant set ipn_secret = coalesce(ipn_secret, ?) where id = ? returning ipn_secret',
    [newSecret(), merchantId],
  );
  const secret = rows[0]?.ipn_secret;
  if (!secret) throw new Error(`merchant ${merchantId} not found`);
  return secret;
}

/** Replaces the secret: deliveries from now on are signed with the new one. */
export async function rotateIpnSecret(em: EntityManager, merchantId: number): Promise<string> {
  const secret = newSecret();
  await em.execute('update merchant set ipn_secret = ? where id = ?', [secret, merchantId]);
  return secret;
}
