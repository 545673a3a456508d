import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';

/** A Standard Webhooks secret: "whsec_" and 24 random bytes in base64. */
const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/**
 * The merchant's IPN secret, made on first use. Read first and written only while still empty: an update
 * on every event would lock the merchant's row until commit and serialise all of its sales.
 */
export async function ipnSecret(em: EntityManager, merchantId: number): Promise<string> {
  const [known] = await em.execute<{ ipn_secret: string | null }[]>(
    'select ipn_secret from merchant where id = ?',
    [merchantId],
  );
  if (known?.ipn_secret) return known.ipn_secret;
  await em.execute('update merchant set ipn_secret = ? where id = ? and ipn_secret is null', [
    newSecret(),
    merchantId,
  ]);
  const [made] = await em.execute<{ ipn_secret: string | null }[]>(
    'select ipn_secret from merchant where id = ?',
    [merchantId],
  );
  if (!made?.ipn_secret) throw new Error(`merchant ${merchantId} not found`);
  return made.ipn_secret; // ours, or the one a concurrent first use wrote
}

/** Replaces the secret: deliveries from now on are signed with the new one. */
export async function rotateIpnSecret(em: EntityManager, merchantId: number): Promise<string> {
  const secret = newSecret();
  await em.execute('update merchant set ipn_secret = ? where id = ?', [secret, merchantId]);
  return secret;
}
