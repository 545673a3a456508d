import { Migration } from '@mikro-orm/migrations';

/**
 * The Reporting API reads each table by merchant and event time, in (time, id) order a batch at a time
 * (reports/queries.ts): one index per source table in that order, so a batch starts where the last ended
 * instead of scanning the merchant's history again. Only the rows a report can read are indexed.
 */
export class Reports extends Migration {
  override up(): void {
    this.addSql(`create index "card_transaction_report_idx" on "card_transaction" ("merchant_id", "authorized_at", "id")
      where "status" = 'CAPTURED'`);
    this.addSql('create index "refund_report_idx" on "refund" ("merchant_id", "created_at", "id")');
    this.addSql('create index "chargeback_report_idx" on "chargeback" ("merchant_id", "created_at", "id")');
    this.addSql(`create index "sepa_debit_report_idx" on "sepa_debit" ("merchant_id", "settled_at", "id")
      where "settled_at" is not null`);
    this.addSql('create index "sepa_refund_report_idx" on "sepa_refund" ("merchant_id", "created_at", "id")');
    this.addSql(`create index "subscription_charge_report_idx"
      on "subscription_charge" ("merchant_id", (coalesce("charged_at", "updated_at")), "id")
      where "status" in ('CHARGED', 'DECLINED')`);
    this.addSql(`create index "subscription_report_idx" on "subscription" ("merchant_id", "created_at", "id")
      where "status" = 'ACTIVE'`);
  }
}
