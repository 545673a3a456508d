import { Migration } from '@mikro-orm/migrations';

/**
 * A cart item keeps the values of the merchant's custom parameters given with it (the Extended API's
 * sku-parameter), each under the parameter's title as it was when the order was placed.
 */
export class SkuParameters extends Migration {
  override up(): void {
    this.addSql(`alter table "order_item" add column "sku_parameters" jsonb not null default '[]'`);
  }
}
