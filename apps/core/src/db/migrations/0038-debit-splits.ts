import { Migration } from '@mikro-orm/migrations';

/**
 * Splits on debits (docs/marketplace.md): a split's transaction is a card transaction or a SEPA/ACH debit, and
 * a vendor's refund part belongs to a card refund or a debit's refund. Each pair shares one id sequence (so a
 * payment id names one payment whichever kind it is), so the split and refund rows keep the id and lose the
 * foreign key to the card tables, which no longer holds for every row.
 */
export class DebitSplits extends Migration {
  override up(): void {
    this.addSql('alter table "vendor_split" drop constraint "vendor_split_transaction_id_fkey"');
    this.addSql('alter table "vendor_refund" drop constraint "vendor_refund_refund_id_fkey"');
  }
}
