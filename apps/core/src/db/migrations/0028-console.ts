import { Migration } from '@mikro-orm/migrations';

/**
 * The merchant console (console/): its sign-in sessions, kept by core so that every facade knows them and a
 * sign-out or a password change ends them everywhere. Only a hash of the cookie's token is stored. A declined
 * authorization keeps its reason, for the console's declines by reason.
 */
export class MerchantConsole extends Migration {
  override up(): void {
    this.addSql(`create table "console_session" (
      "token_hash" bytea primary key,
      "merchant_id" integer not null references "merchant" ("id"),
      "credentials_generation" integer not null,
      "created_at" timestamptz not null default now(),
      "last_seen_at" timestamptz not null default now(),
      "ended_at" timestamptz null)`);
    this.addSql('create index "console_session_merchant_idx" on "console_session" ("merchant_id")');
    this.addSql('alter table "payment_attempt" add column "decline_reason" varchar(40) null');
    this.addSql(`create index "payment_attempt_console_idx" on "payment_attempt" ("merchant_id", "created_at")
      where "kind" = 'AUTHORIZE'`);
    this.addSql(
      `create index "card_transaction_console_idx" on "card_transaction" ("merchant_id", "id" desc)`,
    );
  }
}
