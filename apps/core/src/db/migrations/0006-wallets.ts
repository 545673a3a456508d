import { Migration } from '@mikro-orm/migrations';

/**
 * Wallet payments: a card transaction pays with a vaulted card or with a wallet token. The token is never
 * kept; the transaction keeps what its answers and events show of the wallet's card (brand, last four, the
 * device account number's last four, card class, billing contact), so it refers to no vaulted card.
 */
export class Wallets extends Migration {
  override up(): void {
    this.addSql('alter table "card_transaction" alter column "card_id" drop not null');
    this.addSql('alter table "card_transaction" add column "wallet" jsonb null');
    this.addSql(`alter table "card_transaction" add constraint "card_transaction_card_or_wallet_check"
      check (("card_id" is null) <> ("wallet" is null))`);
  }
}
