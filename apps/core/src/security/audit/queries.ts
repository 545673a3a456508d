/**
 * Every hand-written statement of the audit trail; parameters as `$n`, never values in the text. The chain
 * itself (seq, time, hash) is written by 0021's insert trigger.
 */

/**
 * An event: merchant $1 (null: none), actor kind $2 and actor $3, client address $4, request id $5, action
 * $6, object $7, outcome $8. The trigger fills in chain, seq, time and hash.
 */
export const insertAuditEvent = `insert into audit_event
       (merchant_id, actor_kind, actor, client_address, request_id, action, object, outcome)
     values ($1, $2, $3, $4, $5, $6, $7, $8)`;

/** A page of merchant $1's events, newest first, older than seq $2 (null: from the newest), at most $3. */
export const auditEventPage = `select seq, action, object, outcome, actor_kind, actor, client_address, request_id,
            occurred_at, hash
     from audit_event where chain = $1 and ($2::bigint is null or seq < $2) order by seq desc limit $3`;

/**
 * Every break in every chain: a row whose hash is not the digest of its predecessor's hash and itself
 * (altered, or moved), a seq that does not follow its predecessor's (removed rows), and a chain whose last
 * row is not its head (the last rows removed, or rows added behind the trigger's back).
 */
export const chainBreaks = `with linked as (
       select e.chain, e.seq, e.hash,
              audit_event_digest(coalesce(lag(e.hash) over w, ''), e) as digest,
              coalesce(lag(e.seq) over w, 0) as previous_seq
       from audit_event e window w as (partition by e.chain order by e.seq)),
     tails as (select distinct on (chain) chain, seq, hash from audit_event order by chain, seq desc)
     select chain, seq, 'altered or reordered' as problem from linked where hash <> digest
     union all
     select chain, seq, 'rows missing before it' from linked where seq <> previous_seq + 1
     union all
     select coalesce(h.chain, t.chain), coalesce(t.seq, 0),
            case when coalesce(t.seq, 0) < coalesce(h.seq, 0) then 'last rows missing: the head is seq ' || h.seq
                 else 'not the head of its chain' end
     from audit_chain h full join tails t on t.chain = h.chain
     where t.seq is distinct from h.seq or t.hash is distinct from h.hash
     order by 1, 2`;

/** Each chain's head: its last seq and hash, what an operator keeps outside the database to compare. */
export const chainHeads = 'select chain, seq, hash from audit_chain order by chain';
