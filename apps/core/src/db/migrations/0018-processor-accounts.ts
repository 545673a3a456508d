import { Migration } from '@mikro-orm/migrations';

/**
 * A merchant's processor accounts and its routing rules (README, Processor accounts and routing).
 * - An account's credentials are sealed by the card vault; the sandbox connector takes none and is test only.
 * - The default account (`is_default`, at most one per merchant) is where payments go when no rule sends them
 *   elsewhere, and the last failover.
 * - Rules apply in `position` order; a rule points only at an account of its own merchant (the composite key).
 */
export class ProcessorAccounts extends Migration {
  override up(): void {
    this.addSql(`create table "processor_account" (
      "id" serial primary key,
      "merchant_id" integer not null references "merchant" ("id"),
      "name" varchar(64) not null,
      "connector" varchar(16) not null check ("connector" in ('sandbox', 'adyen')),
      "environment" varchar(4) not null check ("environment" in ('test', 'live')),
      "merchant_account" varchar(100) not null,
      "currencies" text[] not null default '{}',
      "sealed_credentials" text null,
      "is_default" boolean not null default false,
      "enabled" boolean not null default true,
      "created_at" timestamptz not null default now(),
      "disabled_at" timestamptz null,
      constraint "processor_account_name_unique" unique ("merchant_id", "name"),
      constraint "processor_account_of_merchant" unique ("id", "merchant_id"),
      constraint "processor_account_credentials" check (("connector" = 'sandbox') = ("sealed_credentials" is null)),
      constraint "processor_account_sandbox_test_only" check ("connector" <> 'sandbox' or "environment" = 'test'),
      constraint "processor_account_disabled_at" check ("enabled" = ("disabled_at" is null)))`);
    this.addSql(`create unique index "processor_account_default_unique" on "processor_account" ("merchant_id")
      where "is_default"`);

    this.addSql(`create table "processor_route" (
      "id" serial primary key,
      "merchant_id" integer not null references "merchant" ("id"),
      "position" integer not null check ("position" >= 1),
      "account_id" integer not null,
      "currency" varchar(3) null,
      "card_brand" varchar(16) null,
      "min_amount_minor" bigint null check ("min_amount_minor" >= 0),
      "max_amount_minor" bigint null check ("max_amount_minor" >= 0),
      "percent" smallint null check ("percent" between 1 and 100),
      constraint "processor_route_position_unique" unique ("merchant_id", "position"),
      constraint "processor_route_account" foreign key ("account_id", "merchant_id")
        references "processor_account" ("id", "merchant_id"),
      constraint "processor_route_amount_band" check ("min_amount_minor" <= "max_amount_minor"))`);
  }
}
