import { CallerCredential } from './callers/entities.ts';
import { CardTransaction, Refund } from './cards/entities.ts';
import { CatalogProduct, CatalogSku, CustomParameter } from './catalog/entities.ts';
import { openOrm } from './db/orm.ts';
import type { WireOptions } from './db/wire.ts';
import { IdempotencyRecord } from './idempotency/entities.ts';
import { IpnConfig, IpnDelivery } from './ipn/entities.ts';
import { Vendor } from './marketplace/entities.ts';
import { Merchant } from './merchants/entities.ts';
import { Invoice, OrderItem, ShopperOrder } from './orders/entities.ts';
import { ProcessorAccount, ProcessorRoute } from './processors/accounts/entities.ts';
import { RecurringPlan, Subscription, SubscriptionCharge } from './recurring/entities.ts';
import { SepaDebit, SepaMandate, SepaRefund } from './sepa/entities.ts';
import { Shopper, StoredCard } from './shoppers/entities.ts';
import { PaymentFieldsToken } from './tokens/entities.ts';

/** Every capability's entities: the composition root hands them to the database layer, which knows none. */
const entities = [
  Merchant,
  Shopper,
  StoredCard,
  CardTransaction,
  Refund,
  PaymentFieldsToken,
  IdempotencyRecord,
  IpnConfig,
  IpnDelivery,
  SepaMandate,
  SepaDebit,
  SepaRefund,
  CatalogProduct,
  CatalogSku,
  CustomParameter,
  ShopperOrder,
  OrderItem,
  Invoice,
  CallerCredential,
  RecurringPlan,
  Subscription,
  SubscriptionCharge,
  ProcessorAccount,
  ProcessorRoute,
  Vendor,
];

/** Paywire's database (db/orm.ts) with every capability's entities mapped. */
export const openDatabase = (databaseUrl: string, poolSize: number, waits?: WireOptions) =>
  openOrm(entities, databaseUrl, poolSize, waits);
