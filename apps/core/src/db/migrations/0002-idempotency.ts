import { Migration } from '@mikro-orm/migrations';

/**
 * Idempotency records: one per merchant and key, holding the first answer for 24 hours. The answer is
 * kept as JSON text, not jsonb: jsonb reorders keys, and a replay must be the same bytes.
 */
export class Idempotency extends Migration {
  override up(): void {
    this.addSql(`create table "idempotency_record" (
      "merchant_id" integer not null references "merchant" ("id"),
      "key" varchar(64) not null,
      "fingerprint" varchar(64) not null,
      "procedure" varchar(100) not null,
      "outcome" text not null,
      "created_at" timestamptz not null,
      "expires_at" timestamptz not null,
      primary key ("merchant_id", "key"))`);
    this.addSql('create index "idempotency_record_expires_at_idx" on "idempotency_record" ("expires_at")');
  }
}
