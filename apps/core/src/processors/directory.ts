import type { EntityManager } from '@mikro-orm/postgresql';
import type { CardBrand } from '@paywire/contracts';
import type { Mode } from '../context.ts';
import type { ConnectorName, Processor } from './processor.ts';

/** A processor account as a payment is routed to it: credentials opened, for the connector alone. */
export interface RoutedAccount {
  /** Null: the built-in sandbox account a sandbox merchant without accounts of its own pays through. */
  id: number | null;
  name: string;
  connector: ConnectorName;
  environment: 'test' | 'live';
  merchantAccount: string;
  credentials: unknown;
}

/** What routing decides on (processors/routing.ts). `roll` (0-99) is stable per payment: percentage splits. */
export interface RoutingFacts {
  currency: string;
  brand?: CardBrand | undefined;
  amountMinor: number;
  roll: number;
}

/** The built-in sandbox account: no credentials, never live. */
export const builtInSandboxAccount: RoutedAccount = {
  id: null,
  name: 'sandbox',
  connector: 'sandbox',
  environment: 'test',
  merchantAccount: 'sandbox',
  credentials: null,
};

/**
 * Where the payment pipeline finds processors: the merchant's accounts in failover order for a payment,
 * an account by id (a capture goes where its authorization went), and the connector that talks to one.
 */
export interface ProcessorDirectory {
  route(em: EntityManager, merchantId: number, facts: RoutingFacts, mode: Mode): Promise<RoutedAccount[]>;
  account(em: EntityManager, merchantId: number, id: number | null): Promise<RoutedAccount>;
  connect(account: RoutedAccount): Processor;
}

/** The percentage roll of a payment, from its attempt reference (a UUID): the same payment, the same roll. */
export function rollOf(reference: string): number {
  return Number.parseInt(reference.replaceAll('-', '').slice(0, 8), 16) % 100;
}

/**
 * The directory core runs with. `sandbox` answers the built-in account and every sandbox account (one book,
 * as one sandbox acquirer would keep).
 */
export function createProcessorDirectory(options: { sandbox: Processor }): ProcessorDirectory {
  return {
    async route(_em, _merchantId, _facts, mode) {
      return mode === 'sandbox' ? [builtInSandboxAccount] : [];
    },
    async account(_em, _merchantId, id) {
      if (id !== null) throw new Error(`processor account ${id} is unknown`);
      return builtInSandboxAccount;
    },
    connect(account) {
      if (account.connector === 'sandbox') return options.sandbox;
      throw new Error(`no connector for ${account.connector}`);
    },
  };
}
