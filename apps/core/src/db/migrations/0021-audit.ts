import { Migration } from '@mikro-orm/migrations';

/**
 * The audit trail (security/audit): one append-only, hash-chained `audit_event` row per change a person or
 * a caller makes, written in the transaction of the change.
 * - One chain per merchant (chain 0 for events of no merchant), so merchants' writers never wait on each
 *   other. `audit_chain` holds each chain's head (last seq and hash); the insert trigger locks that row, so
 *   concurrent writers of one chain take turns until commit, and numbers and links each row from the head
 *   it saw: seq, time and hash are the trigger's, never the inserter's.
 * - Each row's hash covers the previous row's hash and every column, so an altered, removed or reordered
 *   row breaks the chain, and the head tells a removed last row (`npm run audit -- verify`).
 * - Rows cannot be updated or deleted and the table cannot be truncated; heads move only through the insert
 *   trigger. Only the owner can switch that off (the service has no role of its own yet to deny it).
 */
export class Audit extends Migration {
  override up(): void {
    this.addSql(`create table "audit_chain" (
      "chain" integer primary key,
      "seq" bigint not null,
      "hash" text not null)`);
    this.addSql(`create table "audit_event" (
      "chain" integer not null,
      "seq" bigint not null,
      "merchant_id" integer,
      "actor_kind" text not null check ("actor_kind" in ('merchant', 'caller', 'operator', 'system')),
      "actor" text not null,
      "client_address" text,
      "request_id" text,
      "action" text not null,
      "object" text,
      "outcome" text not null check ("outcome" in ('success', 'failure')),
      "occurred_at" timestamptz not null,
      "hash" text not null,
      primary key ("chain", "seq"))`);
    // time in microseconds since the epoch: a timestamp's text would follow the session's time zone
    this.addSql(`create function "audit_event_digest"("previous" text, "e" "audit_event") returns text
      language sql immutable as $$
        select encode(sha256(convert_to(jsonb_build_array("previous", e.chain, e.seq, e.merchant_id,
          e.actor_kind, e.actor, e.client_address, e.request_id, e.action, e.object, e.outcome,
          (extract(epoch from e.occurred_at) * 1000000)::bigint)::text, 'UTF8')), 'hex')
      $$`);
    this.addSql(`create function "audit_event_chained"() returns trigger language plpgsql as $$
      declare head "audit_chain";
      begin
        new.chain := coalesce(new.merchant_id, 0);
        insert into "audit_chain" ("chain", "seq", "hash") values (new.chain, 0, '') on conflict do nothing;
        select * into head from "audit_chain" where "chain" = new.chain for update;
        new.seq := head.seq + 1;
        new.occurred_at := now();
        new.hash := "audit_event_digest"(head.hash, new);
        update "audit_chain" set "seq" = new.seq, "hash" = new.hash where "chain" = new.chain;
        return new;
      end $$`);
    this.addSql(`create trigger "audit_event_chained" before insert on "audit_event"
      for each row execute function "audit_event_chained"()`);
    this.addSql(`create function "audit_append_only"() returns trigger language plpgsql as $$
      begin
        raise exception 'the audit trail is append-only';
      end $$`);
    this.addSql(`create trigger "audit_event_append_only" before update or delete on "audit_event"
      for each row execute function "audit_append_only"()`);
    this.addSql(`create trigger "audit_event_no_truncate" before truncate on "audit_event"
      for each statement execute function "audit_append_only"()`);
    // a head moves only with the insert that extends its chain (trigger depth 2: fired by that trigger)
    this.addSql(`create function "audit_chain_guarded"() returns trigger language plpgsql as $$
      begin
        if tg_op = 'UPDATE' and pg_trigger_depth() = 2 and new.chain = old.chain and new.seq = old.seq + 1 then
          return new;
        end if;
        raise exception 'audit chain heads move only with a new audit event';
      end $$`);
    this.addSql(`create trigger "audit_chain_guarded" before update or delete on "audit_chain"
      for each row execute function "audit_chain_guarded"()`);
    this.addSql(`create trigger "audit_chain_no_truncate" before truncate on "audit_chain"
      for each statement execute function "audit_append_only"()`);
  }
}
