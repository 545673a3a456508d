import { Migration } from '@mikro-orm/migrations';

/**
 * SEPA debits reach the bank through the payment pipeline's call phase: settlement presents a debit when it
 * falls due, outside any transaction, and records the answer afterwards (sepa/settlement.ts). A debit opened
 * from now on has no outcome until then; `presenting_until` leases it to the run asking the bank, so two runs
 * never present one debit and a run that died is taken over once its lease ends.
 */
export class SepaPresentation extends Migration {
  override up(): void {
    this.addSql('alter table "sepa_debit" alter column "outcome" drop not null');
    this.addSql('alter table "sepa_debit" add column "presenting_until" timestamptz null');
  }
}
