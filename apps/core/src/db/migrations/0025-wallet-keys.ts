import { Migration } from '@mikro-orm/migrations';

/**
 * A merchant's wallet decryption keys (wallets/keys.ts): one row per merchant, the keys sealed by the card
 * vault together with the merchant id they were sealed for, so a copied row opens for no one else.
 */
export class WalletKeys extends Migration {
  override up(): void {
    this.addSql(`create table "wallet_keys" (
      "merchant_id" integer primary key references "merchant" ("id"),
      "sealed_keys" text not null,
      "updated_at" timestamptz not null default now())`);
  }
}
