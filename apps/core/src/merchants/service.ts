import type { EntityManager } from '@mikro-orm/postgresql';
import { hashPassword, verifyPassword } from '../security/passwords.ts';
import { Merchant } from './entities.ts';

/** The merchant id for valid credentials, else null. Runs the slow hash: callers cache the answer. */
export async function authenticate(
  em: EntityManager,
  username: string,
  password: string,
): Promise<number | null> {
  const merchant = await em.findOne(Merchant, { username });
  if (!merchant) {
    await hashPassword(password); // same cost either way, so timing does not reveal which usernames exist
    return null;
  }
  return (await verifyPassword(password, merchant.passwordHash)) ? merchant.id : null;
}

/** Creates the merchant, or sets the password of an existing one: the operator's credentials win. */
export async function upsertMerchant(em: EntityManager, username: string, password: string): Promise<number> {
  const passwordHash = await hashPassword(password);
  const rows = await em.execute<{ id: number }[]>(
    `insert into merchant (username, password_hash) values (?, ?)
     on conflict (username) do update set password_hash = excluded.password_hash returning id`,
    [username, passwordHash],
  );
  const id = rows[0]?.id;
  if (id === undefined) throw new Error('merchant upsert returned no id');
  return id;
}
