/**
 * Every hand-written statement of callers, named for its role; parameters as `$n`, never values in the text.
 */

/** Serialises admin bootstraps until the transaction ends (a statement of its own: later ones see its winner). */
export const lockBootstrap = `select pg_advisory_xact_lock(hashtext('paywire admin bootstrap'))`;

/** The active admin credentials' names: a bootstrap issues the first one only. */
export const activeAdmins = `select name from caller_credential
  where scope = 'admin' and revoked_at is null and (expires_at is null or expires_at > now())`;

/** A credential by id, unless revoked or expired. */
export const liveCredential = `select name, scope, merchant_id, secret_hash,
              (extract(epoch from expires_at) * 1000)::float8 as expires_ms
         from caller_credential
        where id = $1 and revoked_at is null and (expires_at is null or expires_at > now())`;
