import { Migration } from '@mikro-orm/migrations';

/**
 * ECP/ACH debits (docs/ach.md) are bank debits as SEPA's are, and share their rows, settlement, refunds and
 * returns: an ACH account is a shopper's authorization to debit one account, kept as a mandate of scheme ACH
 * whose sealed number is the account number and whose routing number and account type are its own columns.
 * A SEPA mandate's scheme is SEPA; the new columns stay null.
 */
export class Ach extends Migration {
  override up(): void {
    this.addSql(`alter table "sepa_mandate"
      add column "scheme" varchar(4) not null default 'SEPA',
      add column "routing_number" varchar(9) null,
      add column "account_type" varchar(20) null,
      add constraint "sepa_mandate_scheme_check" check (
        ("scheme" = 'SEPA' and "routing_number" is null and "account_type" is null)
        or ("scheme" = 'ACH' and "routing_number" is not null and "account_type" is not null))`);
  }
}
