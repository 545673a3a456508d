import { Migration } from '@mikro-orm/migrations';

/**
 * Credentials of core's internal callers (the facade, internal services). Only a SHA-256 of each secret
 * is kept; a caller may hold several at once (rotation), each revocable and optionally expiring.
 */
export class CallerCredentials extends Migration {
  override up(): void {
    this.addSql(`create table "caller_credential" (
      "id" serial primary key,
      "name" varchar(100) not null,
      "scope" varchar(20) not null check ("scope" in ('any-merchant', 'one-merchant', 'read-only', 'admin')),
      "merchant_id" integer null references "merchant" ("id"),
      "secret_hash" varchar(64) not null,
      "created_at" timestamptz not null default now(),
      "expires_at" timestamptz null,
      "revoked_at" timestamptz null,
      constraint "caller_credential_merchant_bound" check (("scope" in ('one-merchant', 'read-only')) = ("merchant_id" is not null)))`);
    this.addSql('create index "caller_credential_name_index" on "caller_credential" ("name")');
  }
}
