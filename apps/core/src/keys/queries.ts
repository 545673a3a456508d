/**
 * Every hand-written statement of keys/, named for its role; parameters as `$n`, never values in the text.
 */

/** Serialises first-start key creation and rotation across cores and the CLI (inside a transaction). */
export const lockKeys = `select pg_advisory_xact_lock(hashtext('paywire data keys'))`;

/** The keys still holding material (not retired), oldest first. */
export const liveKeys = `select id, purpose, legacy, kek_id, wrapped, check_value, activates_at
  from data_key where retired_at is null order by id`;

/** Every key, retired ones too, for `keys status`. */
export const allKeys = `select id, purpose, legacy, kek_id, check_value, activates_at, created_at, retired_at
  from data_key order by id`;

/** A new key's id, so its wrapping can be bound to it before the row exists. */
export const nextKeyId = `select nextval(pg_get_serial_sequence('data_key', 'id'))::integer as id`;

/** $1 id, $2 purpose, $3 legacy, $4 kek id, $5 wrapped, $6 check value, $7 seconds until it may seal. */
export const insertKey = `insert into data_key (id, purpose, legacy, kek_id, wrapped, check_value, activates_at)
  values ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7))`;

/** The key sealing now: the newest non-legacy encryption key already active. */
export const currentKey = `select id, activates_at, now() >= activates_at as active from data_key
  where purpose = 'encryption' and not legacy and retired_at is null and activates_at <= now()
  order by activates_at desc, id desc limit 1`;

/** The newest key of purpose $1 (active or waiting for its activation), with how long until then. */
export const newestKey = `select id, greatest(0, extract(epoch from activates_at - now()))::float8 as wait_seconds
  from data_key where purpose = $1 and not legacy and retired_at is null
  order by activates_at desc, id desc limit 1`;

/**
 * Sealed columns, per table: `$1` the last row seen, `$2` the prefix values under the target key start with,
 * `$3` the batch size. Each returns the row's cursor, merchant, bound identity and sealed value.
 */
export const sealedBatches = {
  stored_card: `select id::text as cursor, merchant_id, fingerprint as row, sealed_number as sealed from stored_card
    where id > coalesce($1::bigint, 0) and sealed_number not like $2 order by id limit $3`,
  payment_fields_token: `select token as cursor, merchant_id, token as row, sealed_card as sealed
    from payment_fields_token where token > coalesce($1, '') and sealed_card is not null and sealed_card not like $2
    order by token limit $3`,
  sepa_mandate: `select id::text as cursor, merchant_id, iban_fingerprint as row, sealed_iban as sealed from sepa_mandate
    where id > coalesce($1::bigint, 0) and sealed_iban not like $2 order by id limit $3`,
  processor_account: `select id::text as cursor, merchant_id, name as row, sealed_credentials as sealed
    from processor_account where id > coalesce($1::bigint, 0) and sealed_credentials is not null
      and sealed_credentials not like $2 order by id limit $3`,
  wallet_keys: `select merchant_id::text as cursor, merchant_id, merchant_id::text as row, sealed_keys as sealed
    from wallet_keys where merchant_id > coalesce($1::integer, 0) and sealed_keys not like $2
    order by merchant_id limit $3`,
  ipn_secret: `select id::text as cursor, merchant_id, id::text as row, sealed_secret as sealed from ipn_secret
    where id > coalesce($1::bigint, 0) and sealed_secret not like $2 order by id limit $3`,
  vendor: `select id::text as cursor, merchant_id, id::text as row, sealed_secrets as sealed from vendor
    where id > coalesce($1::integer, 0) and sealed_secrets is not null and sealed_secrets not like $2
    order by id limit $3`,
} as const;

/**
 * Replaces a batch of sealed values in one statement, each only if it is still the one read: a concurrent
 * write wins. $1 the rows' cursors, $2 their new values, $3 the values read (arrays in the same order).
 */
const resealedIn = (table: string, column: string, key: string, cast: string) =>
  `update ${table} t set ${column} = v.fresh from unnest($1::text[], $2::text[], $3::text[]) as v(cursor, fresh, old)
    where t.${key} = v.cursor${cast} and t.${column} = v.old`;
export const resealed = {
  stored_card: resealedIn('stored_card', 'sealed_number', 'id', '::bigint'),
  payment_fields_token: resealedIn('payment_fields_token', 'sealed_card', 'token', ''),
  sepa_mandate: resealedIn('sepa_mandate', 'sealed_iban', 'id', '::bigint'),
  processor_account: resealedIn('processor_account', 'sealed_credentials', 'id', '::integer'),
  wallet_keys: resealedIn('wallet_keys', 'sealed_keys', 'merchant_id', '::integer'),
  ipn_secret: resealedIn('ipn_secret', 'sealed_secret', 'id', '::bigint'),
  vendor: resealedIn('vendor', 'sealed_secrets', 'id', '::integer'),
} as const;

/**
 * Fingerprinted values, per table: `$1` the last row seen, `$2` the prefix fingerprints under the target key
 * start with, `$3` the batch size. Each returns the row's cursor, merchant, fingerprint (the row its sealed
 * value is bound to) and sealed value; a mandate also its scheme and routing number, part of what is
 * fingerprinted.
 */
export const fingerprintedBatches = {
  stored_card: `select id::text as cursor, merchant_id, fingerprint as row, sealed_number as sealed from stored_card
    where id > coalesce($1::bigint, 0) and fingerprint is not null and fingerprint not like $2 order by id limit $3`,
  sepa_mandate: `select id::text as cursor, merchant_id, iban_fingerprint as row, sealed_iban as sealed, scheme,
      routing_number from sepa_mandate
    where id > coalesce($1::bigint, 0) and iban_fingerprint not like $2 order by id limit $3`,
} as const;

/**
 * Replaces a value's fingerprint ($2) and its value sealed bound to it ($3) only if both are still the ones
 * read ($4 fingerprint, $5 sealed), and the shopper has none under the new fingerprint. $1 cursor. A row for
 * each value replaced. A card's unanswered account updater lines (which keep only its fingerprint) follow it
 * to the new fingerprint, so the answer still finds the card.
 */
export const refingerprinted = {
  stored_card: `with card as (
      update stored_card c set fingerprint = $2, sealed_number = $3
       where c.id = $1::bigint and c.fingerprint = $4 and c.sealed_number = $5
         and not exists (select 1 from stored_card o where o.shopper_id = c.shopper_id and o.fingerprint = $2)
      returning c.merchant_id),
    lines as (
      update account_update l set card_fingerprint = $2 from card
       where l.merchant_id = card.merchant_id and l.card_fingerprint = $4
         and l.batch_id in (select b.id from account_update_batch b where b.answered_at is null))
    select 1 from card`,
  sepa_mandate: `update sepa_mandate m set iban_fingerprint = $2, sealed_iban = $3
    where m.id = $1::bigint and m.iban_fingerprint = $4 and m.sealed_iban = $5
      and not exists (select 1 from sepa_mandate o where o.shopper_id = m.shopper_id and o.iban_fingerprint = $2)
    returning 1`,
} as const;

/** $1 key, $2 table: the rotation's progress there (made on first use). */
export const progressOf = `insert into key_reencryption (key_id, table_name) values ($1, $2)
  on conflict (key_id, table_name) do update set updated_at = key_reencryption.updated_at
  returning last_row, finished_at`;

/** $1 key, $2 table, $3 last row, $4 rows re-encrypted in the batch, $5 finished. */
export const advanceProgress = `update key_reencryption set last_row = $3, rows_reencrypted = rows_reencrypted + $4,
  finished_at = case when $5 then now() end, updated_at = now() where key_id = $1 and table_name = $2`;

/** Values sealed under each key (`v1` counted as the legacy key): what refers to a key. */
export const referencesByKey = `with sealed(value) as (
    select sealed_number from stored_card where sealed_number is not null
    union all select sealed_card from payment_fields_token where sealed_card is not null
    union all select sealed_iban from sepa_mandate where sealed_iban is not null
    union all select sealed_credentials from processor_account where sealed_credentials is not null
    union all select sealed_keys from wallet_keys
    union all select sealed_secret from ipn_secret
    union all select sealed_secrets from vendor where sealed_secrets is not null)
  select case when value like 'v1:%' then 'v1' else split_part(value, ':', 2) end as key, count(*)::integer as count
  from sealed group by 1`;

/**
 * Retires encryption key $1 ($2 true: the legacy key) when nothing refers to it: its wrapped material is
 * erased in the same statement that proves no table still holds a value under it.
 */
export const retireKey = `update data_key set retired_at = now(), wrapped = null
  where id = $1 and purpose = 'encryption' and retired_at is null
    and not exists (select 1 from stored_card where sealed_number like $2)
    and not exists (select 1 from payment_fields_token where sealed_card like $2)
    and not exists (select 1 from sepa_mandate where sealed_iban like $2)
    and not exists (select 1 from processor_account where sealed_credentials like $2)
    and not exists (select 1 from wallet_keys where sealed_keys like $2)
    and not exists (select 1 from ipn_secret where sealed_secret like $2)
    and not exists (select 1 from vendor where sealed_secrets like $2)
  returning id`;

/**
 * Fingerprints still in use, per fingerprint key id ('legacy' for bare ones): vaulted cards' and mandates', and
 * those idempotency records and fraud screenings compare with (a record until it expires, a screening for the
 * velocity rules' hour).
 */
export const fingerprintReferencesByKey = `with fingerprinted(value) as (
    select fingerprint from stored_card where fingerprint is not null
    union all select iban_fingerprint from sepa_mandate
    union all select fingerprint from idempotency_record where fingerprint is not null and expires_at > now()
    union all select card_fingerprint from fraud_screening
      where card_fingerprint is not null and screened_at > now() - interval '1 hour')
  select coalesce(substring(value from '^f([0-9]+):'), 'legacy') as key, count(*)::integer as count
  from fingerprinted group by 1`;

/**
 * Retires fingerprint key $1 when nothing refers to it (as `fingerprintReferencesByKey` counts), its wrapped
 * material erased in the statement that proves it; $2 the pattern of its fingerprints.
 */
export const retireFingerprintKey = `update data_key set retired_at = now(), wrapped = null
  where id = $1 and purpose = 'fingerprint' and retired_at is null
    and not exists (select 1 from stored_card where fingerprint ~ $2)
    and not exists (select 1 from sepa_mandate where iban_fingerprint ~ $2)
    and not exists (select 1 from idempotency_record where fingerprint ~ $2 and expires_at > now())
    and not exists (select 1 from fraud_screening where card_fingerprint ~ $2
      and screened_at > now() - interval '1 hour')
  returning id`;

/**
 * Whether vaulted cards or mandates still hold a fingerprint matching $1 (a fingerprint key's pattern): what
 * another walk can rewrite, unlike idempotency records and screenings, which only expire.
 */
export const fingerprintStragglers = `select exists (select 1 from stored_card where fingerprint ~ $1)
  or exists (select 1 from sepa_mandate where iban_fingerprint ~ $1) as found`;

/** Each rotation's progress per table, newest first. */
export const rotationProgress = `select key_id, table_name, rows_reencrypted::integer as rows_reencrypted, finished_at,
  updated_at from key_reencryption order by key_id desc, table_name`;

/** Whether the database holds values sealed or fingerprinted before data keys existed (v1). */
export const holdsV1Data = `select exists (select 1 from stored_card where sealed_number is not null) or exists (select 1 from sepa_mandate)
    or exists (select 1 from payment_fields_token where sealed_card is not null)
    or exists (select 1 from processor_account where sealed_credentials is not null)
    or exists (select 1 from wallet_keys)
    or exists (select 1 from vendor where sealed_secrets is not null)
    or exists (select 1 from idempotency_record where fingerprint is not null) as holds`;
