import { Migration } from '@mikro-orm/migrations';

/**
 * ACH return codes (docs/ach.md, Returns): the NACHA return reason code (R01, R03...) an ACH bank answers for
 * a debit it fails or returns, kept on the debit with its outcome.
 */
export class AchReturnCodes extends Migration {
  override up(): void {
    this.addSql(`alter table "sepa_debit" add column "return_code" varchar(3)
      check ("return_code" ~ '^R[0-9]{2}$')`);
  }
}
