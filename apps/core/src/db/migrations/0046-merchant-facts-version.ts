import { Migration } from '@mikro-orm/migrations';

/** The tables a merchant's facts are read from (merchants/queries.ts `factsColumns`), besides `merchant` itself. */
const factsSources = ['ipn_config', 'ipn_secret', 'fraud_settings', 'processor_account', 'processor_route'];

/**
 * A merchant's facts carry a version that every change to what they are read from moves, in the changing
 * transaction: a core may then start a sale from the facts it read before, and its attempt's statement
 * writes only while that version is still the merchant's (merchants/facts.ts, `LastKnownFacts`).
 */
export class MerchantFactsVersion extends Migration {
  override up(): void {
    this.addSql('alter table "merchant" add column "facts_version" bigint not null default 0');
    this.addSql(`create function "merchant_facts_moved"() returns trigger language plpgsql as $$
      begin
        update "merchant" set "facts_version" = "facts_version" + 1
          where "id" = case when tg_op = 'DELETE' then old."merchant_id" else new."merchant_id" end;
        return null;
      end $$`);
    for (const table of factsSources) {
      this.addSql(`create trigger "${table}_moves_merchant_facts" after insert or update or delete on "${table}"
        for each row execute function "merchant_facts_moved"()`);
    }
    this.addSql(`create function "merchant_clock_moved"() returns trigger language plpgsql as $$
      begin
        new."facts_version" := old."facts_version" + 1;
        return new;
      end $$`);
    this.addSql(`create trigger "merchant_clock_moves_facts" before update of "clock_offset_seconds" on "merchant"
      for each row when (old."clock_offset_seconds" is distinct from new."clock_offset_seconds")
      execute function "merchant_clock_moved"()`);
  }
}
