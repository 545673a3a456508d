/**
 * Every hand-written statement of shoppers, named for its role; parameters as `$n`, never values in the text.
 */

/**
 * Keeps a card in its shopper's vault once per card number: a known card takes the new expiry, and the
 * billing contact when one is given. The one statement for it: the shoppers endpoints run it alone
 * (`vaultShopperCard`), a card sale inside its own statement. The shopper is the row `s` of a preceding
 * `with s as (...)`; the card's parameters start at `$first`, in the order `vaultCardParameters` (service.ts)
 * gives.
 */
export function upsertVaultedCard(first: number): string {
  const [merchant, fingerprint, ...columns] = Array.from({ length: 10 }, (_, n) => `$${first + n}`);
  const earlier = `$${first + 10}`;
  // The shopper's card under an earlier fingerprint key (a rotation under way) is this card: its fingerprint is
  // the conflict's, so its sealed number, bound to it, stays. Locked, so the re-fingerprinting waits; a row it
  // re-fingerprinted meanwhile no longer matches, and conflicts under the current fingerprint instead.
  return `insert into stored_card (merchant_id, shopper_id, fingerprint, sealed_number, brand, last_four,
      expiration_month, expiration_year, card_sub_type, card_category, billing_contact, created_at)
    select ${merchant}::integer, s.id, coalesce((select k.fingerprint from stored_card k
        where k.shopper_id = s.id and k.fingerprint = any(${earlier}::varchar[]) limit 1 for update),
        ${fingerprint}::varchar), ${columns.join(', ')}::jsonb, now() from s
    on conflict (shopper_id, fingerprint) do update set expiration_month = excluded.expiration_month,
      expiration_year = excluded.expiration_year,
      billing_contact = coalesce(excluded.billing_contact, stored_card.billing_contact)
    returning id`;
}

/** $1 the shopper, then `vaultCardParameters`. */
export const vaultShopperCard = `with s as (select $1::integer as id) ${upsertVaultedCard(2)}`;

/** The card of the shopper's last payment: a vaulted card's id, or the wallet's card on the transaction. */
export const lastPaymentCard =
  'select card_id, wallet from card_transaction where shopper_id = $1 order by id desc limit 1';

/** The shopper's ($1, of merchant $2) SEPA mandates, oldest first. */
export const mandatesOf = `select reference, iban_first_four, iban_last_four, accepted_at from sepa_mandate
     where shopper_id = $1 and merchant_id = $2 and scheme = 'SEPA' order by id`;

/** The shopper's ($1, of merchant $2) newest ECP/ACH account (docs/ach.md). */
export const newestAchAccountOf = `select iban_last_four, routing_number, account_type from sepa_mandate
     where shopper_id = $1 and merchant_id = $2 and scheme = 'ACH' order by id desc limit 1`;

/**
 * What still needs the shopper's ($1, of merchant $2) payment sources: subscriptions that may charge (active
 * or suspended), on any card or on the cards $3 when given, and SEPA debits still pending.
 */
export const sourcesInUse = `select
    exists (select 1 from subscription where shopper_id = $1 and merchant_id = $2
      and status in ('ACTIVE', 'SUSPENDED') and ($3::bigint[] is null or card_id = any($3::bigint[]))) as subscribed,
    exists (select 1 from sepa_debit where shopper_id = $1 and merchant_id = $2 and status = 'PENDING'
      and $3::bigint[] is null) as debiting`;

/** Erases the shopper's ($1) mandates' IBANs: the sealed IBAN and its fingerprint go, the first and last four stay. */
export const eraseMandates =
  'update sepa_mandate set sealed_iban = null, iban_fingerprint = null where shopper_id = $1';

/** The shopper's ($1) vaulted cards of brand $2 ending in $3 still holding a number. */
export const cardsMatching = `select id from stored_card
    where shopper_id = $1 and brand = $2 and last_four = $3 and removed_at is null`;

/**
 * Removes cards' data at $2: the sealed number, its fingerprint and the billing contact go; brand, last four
 * and expiry stay for the transactions that show them. The shopper's ($1) cards $3, or all of them when null.
 */
export const removeCards = `update stored_card
    set sealed_number = null, fingerprint = null, billing_contact = null, removed_at = $2
  where shopper_id = $1 and removed_at is null and ($3::bigint[] is null or id = any($3::bigint[]))`;
