import { Migration } from '@mikro-orm/migrations';

/**
 * Deleting a vaulted shopper erases its SEPA mandates' IBANs as it erases its cards' numbers: the sealed
 * IBAN and its fingerprint go, the first and last four characters stay for the debits that show them. The
 * mandates of shoppers deleted before this migration are erased now.
 */
export class ErasedMandates extends Migration {
  override up(): void {
    this.addSql('alter table "sepa_mandate" alter column "sealed_iban" drop not null');
    this.addSql('alter table "sepa_mandate" alter column "iban_fingerprint" drop not null');
    this.addSql(`update "sepa_mandate" m set "sealed_iban" = null, "iban_fingerprint" = null
      from "shopper" s where s."id" = m."shopper_id" and s."deleted_at" is not null`);
  }
}
