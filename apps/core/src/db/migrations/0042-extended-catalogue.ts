import { Migration } from '@mikro-orm/migrations';

/**
 * The catalogue in the Extended API's shape (docs/conformance.md, Catalogue): a product's status and
 * descriptions; a sku's contract name, status, type, image and quantity policy. A sku's name is "{product
 * name} - {contract name}", so it and an order item's copy of it grow to hold both names.
 */
export class ExtendedCatalogue extends Migration {
  override up(): void {
    this.addSql(`alter table "catalog_product"
      add column "status" char(1) not null default 'A' check ("status" in ('A', 'I')),
      add column "short_description" varchar(500) not null default '',
      add column "long_description" varchar(4000),
      add column "info_url" varchar(500),
      add column "image" varchar(500),
      add column "merchant_descriptor" varchar(20),
      add column "support_email" varchar(100)`);
    this.addSql(`alter table "catalog_sku"
      alter column "name" type varchar(203),
      add column "contract_name" varchar(100),
      add column "status" char(1) not null default 'A' check ("status" in ('A', 'I', 'D')),
      add column "sku_type" varchar(8) not null default 'DIGITAL' check ("sku_type" in ('DIGITAL', 'PHYSICAL')),
      add column "image" varchar(500),
      add column "allow_quantity_change" boolean not null default true,
      add column "minimum_quantity" integer not null default 1 check ("minimum_quantity" > 0),
      add column "collect_shipping_address" boolean not null default false`);
    // a sku made before had a name of its own: it stays its contract name
    this.addSql(`update "catalog_sku" set "contract_name" = left("name", 100)`);
    this.addSql(`alter table "catalog_sku" alter column "contract_name" set not null`);
    this.addSql(`alter table "order_item" alter column "sku_name" type varchar(203)`);
  }
}
