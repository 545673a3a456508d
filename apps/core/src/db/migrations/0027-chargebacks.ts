import { Migration } from '@mikro-orm/migrations';

/**
 * Chargebacks as a lifecycle of their own (chargebacks/): the original's dispute statuses, the merchant's
 * evidence, and sandbox disputes.
 * - Statuses become the original's: NEW, PENDING_MERCHANT_RESPONSE, MERCHANT_RESPONDED, COMPLETED_WON,
 *   COMPLETED_LOST. Rows of 0020 move with them: WON and REVERSED (the defence held) are COMPLETED_WON,
 *   LOST is COMPLETED_LOST.
 * - `processor_account_id` null is a dispute of the built-in sandbox account (a merchant's rehearsal), as on
 *   card_transaction; `updated_at` dates the last status change.
 * - `chargeback_evidence`: the files of a representment, kept in the database (never on a served path),
 *   with their detected media type and digest.
 */
export class Chargebacks extends Migration {
  override up(): void {
    this.addSql('alter table "chargeback" drop constraint "chargeback_status_check"');
    this.addSql(`update "chargeback" set "status" = case "status" when 'LOST' then 'COMPLETED_LOST'
      when 'NEW' then 'NEW' else 'COMPLETED_WON' end`);
    this.addSql(`alter table "chargeback"
      alter column "status" type varchar(25),
      alter column "processor_account_id" drop not null,
      add column "updated_at" timestamptz not null default now(),
      add constraint "chargeback_status_check" check ("status" in
        ('NEW', 'PENDING_MERCHANT_RESPONSE', 'MERCHANT_RESPONDED', 'COMPLETED_WON', 'COMPLETED_LOST'))`);
    this.addSql(`create table "chargeback_evidence" (
      "id" bigserial primary key,
      "merchant_id" integer not null references "merchant" ("id"),
      "chargeback_id" bigint not null references "chargeback" ("id"),
      "media_type" varchar(30) not null,
      "size_bytes" integer not null,
      "sha256" char(64) not null,
      "content" bytea not null,
      "created_at" timestamptz not null default now())`);
    this.addSql(
      'create index "chargeback_evidence_chargeback_idx" on "chargeback_evidence" ("chargeback_id")',
    );
  }
}
