import { Migration } from '@mikro-orm/migrations';

/**
 * subscription_due_idx (next charge date, active subscriptions) has had no reader since leases started
 * finding due subscriptions merchant by merchant through subscription_renewal_idx (recurring/queries.ts), yet
 * every move of a schedule wrote an entry in it: a renewal's move reads 10% fewer buffers without it.
 */
export class DropUnusedDueIndex extends Migration {
  override up(): void {
    this.addSql('drop index "subscription_due_idx"');
  }
}
