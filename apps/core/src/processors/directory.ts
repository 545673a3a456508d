import type { KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { type AdyenCredentials, DomainError } from '@paywire/contracts';
import type { Mode } from '../context.ts';
import { executePrepared } from '../db/wire.ts';
import type { CardVault } from '../security/card-vault.ts';
import { openCredentials } from './accounts/credentials.ts';
import {
  accountById,
  type PaymentToRoute,
  type RoutedAccount,
  type RoutingTable,
  routeAccounts,
} from './accounts/routing.ts';
import { adyenEndpoint, createAdyenProcessor } from './adyen/client.ts';
import type { AuthorisationLookup, TechnicalCancelLookup } from './adyen/confirmations.ts';
import { notificationSigningKey } from './adyen/hmac.ts';
import { notificationAccount } from './adyen/queries.ts';
import type { Processor } from './processor.ts';

/**
 * Where the payment pipeline finds processors: the merchant's accounts in failover order for a payment,
 * an account by id (a capture goes where its authorization went), and the connector that talks to one.
 */
export interface ProcessorDirectory {
  route(merchantId: number, routing: RoutingTable, payment: PaymentToRoute, mode: Mode): RoutedAccount[];
  account(em: EntityManager, merchantId: number, id: number | null): Promise<RoutedAccount>;
  connect(account: RoutedAccount): Processor;
  /** The Adyen account a notification URL names, with the credentials that authenticate it; null if none. */
  notifying(em: EntityManager, accountId: number): Promise<NotifyingAccount | null>;
}

/** An Adyen account as its notifications are checked and stored. */
export interface NotifyingAccount {
  id: number;
  merchantId: number;
  credentials: AdyenCredentials;
  /** The credentials' HMAC key, ready to check signatures with. */
  signingKey: KeyObject;
}

export interface DirectoryOptions {
  vault: CardVault;
  mode: Mode;
  /** Answers the built-in account and every sandbox account (one book, as one sandbox acquirer keeps). */
  sandbox: Processor;
  /** How long an Adyen call may take before its outcome counts as unknown. */
  adyenTimeoutMs: number;
  /** Every Adyen account's Checkout base URL, in place of Adyen's own (tests: a fake on 127.0.0.1). */
  adyenEndpoint?: string | undefined;
  /** Adyen's confirmations of technical cancels, as its notifications stored them. */
  technicalCancels: TechnicalCancelLookup;
  /** How long a technical cancel waits for its confirmation (default: adyenTimeoutMs). */
  technicalCancelWaitMs?: number | undefined;
  /** Adyen's AUTHORISATION notifications, as stored: what an inquiry about an attempt answers. */
  authorisations: AuthorisationLookup;
}

interface NotificationAccountRow {
  id: number;
  merchant_id: number;
  name: string;
  sealed_credentials: string | null;
}

/** The percentage roll of a payment, from its attempt reference (a UUID): the same payment, the same roll. */
export function rollOf(reference: string): number {
  return Number.parseInt(reference.replaceAll('-', '').slice(0, 8), 16) % 100;
}

/**
 * The directory core runs with. A connector is made once per account and kept (its credentials cannot
 * change: a new key is a new account), so a payment costs no setup.
 */
export function createProcessorDirectory(options: DirectoryOptions): ProcessorDirectory {
  const connected = new Map<number, Processor>();
  const notifyingAccounts = new Map<number, NotifyingAccount>();
  const connectAdyen = (account: RoutedAccount & { id: number }): Processor => {
    const credentials = account.credentials;
    if (!credentials) throw new Error(`processor account ${account.id} has no credentials`);
    return createAdyenProcessor({
      endpoint:
        options.adyenEndpoint ??
        credentials.endpoint ??
        adyenEndpoint(account.environment, credentials.liveUrlPrefix),
      apiKey: credentials.apiKey,
      merchantAccount: account.merchantAccount,
      timeoutMs: options.adyenTimeoutMs,
      technicalCancelConfirmation: (reference) => options.technicalCancels(account.id, reference),
      confirmationWaitMs: options.technicalCancelWaitMs ?? options.adyenTimeoutMs,
      authorisationNotice: (reference) => options.authorisations(account.id, reference),
    });
  };
  return {
    route: (merchantId, routing, payment, mode) =>
      routeAccounts(options.vault, merchantId, routing, payment, mode),
    async account(em, merchantId, id) {
      // A transaction authorized by the built-in sandbox (sandbox mode, or before accounts existed) has no
      // live processor to capture or refund it: live mode never sends anything to the sandbox.
      if (id === null && options.mode === 'live') {
        throw new DomainError(
          'PROCESSOR_ACCOUNT_NOT_FOUND',
          'the transaction was made by the sandbox, not a live processor',
        );
      }
      const account = await accountById(em, options.vault, merchantId, id);
      if (!account)
        throw new DomainError('PROCESSOR_ACCOUNT_NOT_FOUND', `processor account ${id} is unknown`);
      return account;
    },
    // Kept once found, like a connector: Adyen notifies once per payment and more, and an account's
    // credentials never change. An unknown id is asked again each time (the account may be added).
    async notifying(em, accountId) {
      const known = notifyingAccounts.get(accountId);
      if (known) return known;
      const [row] = await executePrepared<NotificationAccountRow>(em, notificationAccount, [accountId]);
      const credentials =
        row &&
        openCredentials(options.vault, {
          merchantId: row.merchant_id,
          name: row.name,
          sealedCredentials: row.sealed_credentials,
        });
      if (!row || !credentials) return null;
      const signingKey = notificationSigningKey(credentials.hmacKey);
      const account = { id: row.id, merchantId: row.merchant_id, credentials, signingKey };
      notifyingAccounts.set(accountId, account);
      return account;
    },
    connect(account) {
      if (account.connector === 'sandbox' || account.id === null) return options.sandbox;
      let processor = connected.get(account.id);
      if (!processor) {
        processor = connectAdyen({ ...account, id: account.id });
        connected.set(account.id, processor);
      }
      return processor;
    },
  };
}

declare module '../context.ts' {
  interface CoreServices {
    /** Where payments go: the merchant's processor accounts, routing and their connectors (payments/ only). */
    processors: ProcessorDirectory;
  }
}
