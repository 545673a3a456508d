import { Migration } from '@mikro-orm/migrations';

/**
 * The tables a merchant's facts are read from (merchants/queries.ts `factsColumns`), besides `merchant` itself,
 * and the changes to each that change the facts. An IPN secret's first insert does not: facts without a
 * secret make the event read it (ipn/events.ts); a rotation retires the current one by an update. So the sale
 * whose event makes the first secret does not lock its merchant's row, which a rotation locks first.
 */
const factsSources = {
  ipn_config: 'insert or update or delete',
  ipn_secret: 'update or delete',
  fraud_settings: 'insert or update or delete',
  processor_account: 'insert or update or delete',
  processor_route: 'insert or update or delete',
};

/**
 * A merchant's facts carry a version that every change to what they are read from replaces, in the changing
 * transaction: a core may then start a sale from the facts it read before, and its attempt's statement
 * writes only while that version is still the merchant's (merchants/facts.ts, `LastKnownFacts`). A random
 * id, not a counter: a counter rewound by a restore or by a failover that lost its last commits would
 * count again through values a core may have kept for other facts.
 */
export class MerchantFactsVersion extends Migration {
  override up(): void {
    this.addSql('alter table "merchant" add column "facts_version" uuid not null default gen_random_uuid()');
    this.addSql(`create function "merchant_facts_moved"() returns trigger language plpgsql as $$
      begin
        update "merchant" set "facts_version" = gen_random_uuid()
          where "id" = case when tg_op = 'DELETE' then old."merchant_id" else new."merchant_id" end;
        return null;
      end $$`);
    for (const [table, changes] of Object.entries(factsSources)) {
      this.addSql(`create trigger "${table}_moves_merchant_facts" after ${changes} on "${table}"
        for each row execute function "merchant_facts_moved"()`);
    }
    this.addSql(`create function "merchant_clock_moved"() returns trigger language plpgsql as $$
      begin
        new."facts_version" := gen_random_uuid();
        return new;
      end $$`);
    this.addSql(`create trigger "merchant_clock_moves_facts" before update of "clock_offset_seconds" on "merchant"
      for each row when (old."clock_offset_seconds" is distinct from new."clock_offset_seconds")
      execute function "merchant_clock_moved"()`);
  }
}
