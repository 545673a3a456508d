import { Migration } from '@mikro-orm/migrations';

/**
 * Splits on debits and subscriptions (docs/marketplace.md). A split's transaction is a card transaction or a
 * SEPA/ACH debit, and a vendor's refund part belongs to a card refund or a debit's refund. Each pair shares
 * one id sequence (so a payment id names one payment whichever kind it is), so the split and refund rows keep
 * the id and lose the foreign key to the card tables, which no longer holds for every row. A subscription
 * keeps its split's terms (vendors and commissions, marketplace/splits.ts SplitTerms), applied to each charge.
 */
export class DebitSplits extends Migration {
  override up(): void {
    this.addSql('alter table "subscription" add column "vendor_split" jsonb null');
    this.addSql('alter table "vendor_split" drop constraint "vendor_split_transaction_id_fkey"');
    this.addSql('alter table "vendor_refund" drop constraint "vendor_refund_refund_id_fkey"');
  }
}
