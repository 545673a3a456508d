import { Migrator } from '@mikro-orm/migrations';
import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { CallerCredential } from '../callers/entities.ts';
import { CardTransaction, Refund } from '../cards/entities.ts';
import { CatalogProduct, CatalogSku } from '../catalog/entities.ts';
import { IdempotencyRecord } from '../idempotency/entities.ts';
import { IpnConfig, IpnDelivery } from '../ipn/entities.ts';
import { migrateJobSchema } from '../jobs/boss.ts';
import { Vendor } from '../marketplace/entities.ts';
import { Merchant } from '../merchants/entities.ts';
import { Invoice, OrderItem, ShopperOrder } from '../orders/entities.ts';
import { ProcessorAccount, ProcessorRoute } from '../processors/accounts/entities.ts';
import { RecurringPlan, Subscription, SubscriptionCharge } from '../recurring/entities.ts';
import { SepaDebit, SepaMandate, SepaRefund } from '../sepa/entities.ts';
import { Shopper, StoredCard } from '../shoppers/entities.ts';
import { PaymentFieldsToken } from '../tokens/entities.ts';
import { Foundation } from './migrations/0001-foundation.ts';
import { Idempotency } from './migrations/0002-idempotency.ts';
import { Ipn } from './migrations/0003-ipn.ts';
import { Sepa } from './migrations/0004-sepa.ts';
import { Orders } from './migrations/0005-orders.ts';
import { Wallets } from './migrations/0006-wallets.ts';
import { IdempotencyClaim } from './migrations/0007-idempotency-claim.ts';
import { MerchantTransactionIds } from './migrations/0008-merchant-transaction-ids.ts';
import { TokenEmbeddingOrigin } from './migrations/0009-token-embedding-origin.ts';
import { CallerCredentials } from './migrations/0010-caller-credentials.ts';
import { LoginSecurity } from './migrations/0011-login-security.ts';
import { IpnDeliveryLease } from './migrations/0012-ipn-delivery-lease.ts';
import { TransactionDetails } from './migrations/0013-transaction-details.ts';
import { PaymentAttempts } from './migrations/0014-payment-attempts.ts';
import { DeliveryRequestId } from './migrations/0015-delivery-request-id.ts';
import { Recurring } from './migrations/0016-recurring.ts';
import { Renewals } from './migrations/0017-renewals.ts';
import { ProcessorAccounts } from './migrations/0018-processor-accounts.ts';
import { ProcessorAttempts } from './migrations/0019-processor-attempts.ts';
import { ProcessorNotifications } from './migrations/0020-processor-notifications.ts';
import { Audit } from './migrations/0021-audit.ts';
import { DataKeys } from './migrations/0022-data-keys.ts';
import { Reports } from './migrations/0023-reports.ts';
import { TechnicalCancelLookup } from './migrations/0024-technical-cancel-lookup.ts';
import { WalletKeys } from './migrations/0025-wallet-keys.ts';
import { Marketplace } from './migrations/0026-marketplace.ts';
import { Chargebacks } from './migrations/0027-chargebacks.ts';
import { MerchantConsole } from './migrations/0028-console.ts';
import { Retention } from './migrations/0029-retention.ts';
import { FraudScreening } from './migrations/0030-fraud-screening.ts';
import { SepaPresentation } from './migrations/0031-sepa-presentation.ts';
import { FingerprintKeys } from './migrations/0036-fingerprint-keys.ts';
import { grantAppRole } from './roles.ts';
import { wireDialect } from './wire.ts';

export const entities = [
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

/** Committed migrations, in order. The schema only ever changes through these, never by sync at boot. */
const migrationsList = [
  { name: '0001-foundation', class: Foundation },
  { name: '0002-idempotency', class: Idempotency },
  { name: '0003-ipn', class: Ipn },
  { name: '0004-sepa', class: Sepa },
  { name: '0005-orders', class: Orders },
  { name: '0006-wallets', class: Wallets },
  { name: '0007-idempotency-claim', class: IdempotencyClaim },
  { name: '0008-merchant-transaction-ids', class: MerchantTransactionIds },
  { name: '0009-token-embedding-origin', class: TokenEmbeddingOrigin },
  { name: '0010-caller-credentials', class: CallerCredentials },
  { name: '0011-login-security', class: LoginSecurity },
  { name: '0012-ipn-delivery-lease', class: IpnDeliveryLease },
  { name: '0013-transaction-details', class: TransactionDetails },
  { name: '0014-payment-attempts', class: PaymentAttempts },
  { name: '0015-delivery-request-id', class: DeliveryRequestId },
  { name: '0016-recurring', class: Recurring },
  { name: '0017-renewals', class: Renewals },
  { name: '0018-processor-accounts', class: ProcessorAccounts },
  { name: '0019-processor-attempts', class: ProcessorAttempts },
  { name: '0020-processor-notifications', class: ProcessorNotifications },
  { name: '0021-audit', class: Audit },
  { name: '0022-data-keys', class: DataKeys },
  { name: '0023-reports', class: Reports },
  { name: '0024-technical-cancel-lookup', class: TechnicalCancelLookup },
  { name: '0025-wallet-keys', class: WalletKeys },
  { name: '0026-marketplace', class: Marketplace },
  { name: '0027-chargebacks', class: Chargebacks },
  { name: '0028-console', class: MerchantConsole },
  { name: '0029-retention', class: Retention },
  { name: '0030-fraud-screening', class: FraudScreening },
  { name: '0031-sepa-presentation', class: SepaPresentation },
  { name: '0036-fingerprint-keys', class: FingerprintKeys },
];

/** Each open database's pool (wire.ts), for what needs a connection of its own (tests). */
const pools = new WeakMap<MikroORM, pg.Pool>();

/**
 * The database through the pipelined pool. Core gives an answer timeout (wire.ts); one-shot commands such
 * as migrations give none, since a migration's statement may rightly run long.
 */
export async function openDatabase(
  databaseUrl: string,
  poolSize: number,
  answerTimeoutMs?: number,
): Promise<MikroORM> {
  const { dialect, pool } = wireDialect(databaseUrl, poolSize, answerTimeoutMs);
  const orm = await MikroORM.init({
    clientUrl: databaseUrl,
    entities,
    debug: false,
    driverOptions: dialect,
    ensureDatabase: false,
    extensions: [Migrator],
    migrations: { migrationsList, snapshot: false, silent: true, transactional: true, allOrNothing: true },
  });
  pools.set(orm, pool);
  return orm;
}

export function poolOf(orm: MikroORM): pg.Pool {
  const pool = pools.get(orm);
  if (!pool) throw new Error('not a database opened by openDatabase');
  return pool;
}

/** An arbitrary constant: the advisory lock every migration run holds, so concurrent runs apply in turn. */
const migrationLock = 0x7061_7977; // "payw"

/**
 * Applies the committed migrations and pg-boss's schema, holding a session advisory lock on a connection of
 * its own: a second run started meanwhile waits, then finds nothing to do. With `appRole`, then gives core's
 * app role its grants (db/roles.ts). Returns the names applied now.
 */
export async function migrate(
  orm: MikroORM,
  databaseUrl: string,
  options: { appRole?: string | undefined } = {},
): Promise<string[]> {
  const lock = new pg.Client({ connectionString: databaseUrl, application_name: 'paywire-migrate' });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [migrationLock]);
    const applied = await orm.migrator.up();
    await migrateJobSchema(databaseUrl);
    if (options.appRole) await grantAppRole(lock, options.appRole);
    return applied.map((migration) => migration.name);
  } finally {
    await lock.end(); // ends the session, which releases the lock whatever happened
  }
}

/** True when every committed migration is applied (core is not ready before). */
export async function migrationsCurrent(orm: MikroORM): Promise<boolean> {
  return (await orm.migrator.getPending()).length === 0;
}
