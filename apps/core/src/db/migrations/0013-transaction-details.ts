import { Migration } from '@mikro-orm/migrations';

/**
 * What the original's requests carry besides the payment, kept with it: a card transaction's 3-D Secure
 * outcome, metadata, Level 2/3 data and fraud screening data; a SEPA debit's metadata; a refund's tax part,
 * cancelSubscriptions flag and metadata, and a reason as long as the original allows (4000 characters).
 */
export class TransactionDetails extends Migration {
  override up(): void {
    this.addSql(`alter table "card_transaction" add column "three_d_secure" jsonb null,
      add column "transaction_meta_data" jsonb null, add column "level3_data" jsonb null,
      add column "transaction_fraud_info" jsonb null`);
    this.addSql('alter table "sepa_debit" add column "transaction_meta_data" jsonb null');
    for (const table of ['refund', 'sepa_refund']) {
      this.addSql(`alter table "${table}" add column "tax_amount_minor" bigint null,
        add column "cancel_subscriptions" boolean null, add column "transaction_meta_data" jsonb null,
        alter column "reason" type varchar(4000)`);
    }
  }
}
