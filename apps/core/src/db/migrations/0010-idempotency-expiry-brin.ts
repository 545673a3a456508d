import { Migration } from '@mikro-orm/migrations';

/**
 * Records arrive in expiry order (24 hours after their merchant's now), so a BRIN index finds the expired
 * ones for the sweep as well as a b-tree does, at almost no cost per keyed request; the b-tree cost an
 * index insert on every one.
 */
export class IdempotencyExpiryBrin extends Migration {
  override up(): void {
    this.addSql('drop index "idempotency_record_expires_at_idx"');
    this.addSql(
      'create index "idempotency_record_expires_at_idx" on "idempotency_record" using brin ("expires_at")',
    );
  }
}
