import { Migration } from '@mikro-orm/migrations';

/**
 * A merchantTransactionId is unique per merchant across card transactions and SEPA debits alike (both are
 * refunded and looked up through the same paths): every one is claimed in this table by the statement that
 * writes its transaction.
 */
export class MerchantTransactionIds extends Migration {
  override up(): void {
    this.addSql(`create table "merchant_transaction_ids" (
      "merchant_id" integer not null references "merchant" ("id"),
      "merchant_transaction_id" varchar(50) not null,
      constraint "merchant_transaction_id_unique" primary key ("merchant_id", "merchant_transaction_id"))`);
    this.addSql(`insert into "merchant_transaction_ids" ("merchant_id", "merchant_transaction_id")
      select "merchant_id", "merchant_transaction_id" from "card_transaction" where "merchant_transaction_id" is not null
      union
      select "merchant_id", "merchant_transaction_id" from "sepa_debit" where "merchant_transaction_id" is not null
      on conflict do nothing`);
  }
}
