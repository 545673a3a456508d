import type { EntityManager } from '@mikro-orm/postgresql';
import type { AdyenCredentials, CardBrand, ConnectorName, ProcessorEnvironment } from '@paywire/contracts';
import type { Mode } from '../../context.ts';
import { executeParameterized } from '../../db/wire.ts';
import type { CardVault } from '../../security/card-vault.ts';
import { openCredentials } from './credentials.ts';
import { ProcessorAccount, type ProcessorRoute } from './entities.ts';
import { liveReadiness } from './queries.ts';

type RoutableAccount = Pick<
  ProcessorAccount,
  | 'id'
  | 'name'
  | 'connector'
  | 'environment'
  | 'merchantAccount'
  | 'currencies'
  | 'sealedCredentials'
  | 'isDefault'
>;
type RoutingRule = Pick<
  ProcessorRoute,
  'accountId' | 'currency' | 'cardBrand' | 'minAmountMinor' | 'maxAmountMinor' | 'percent'
>;

/** A merchant's enabled accounts and its routing rules in order, as its facts carry them (merchants/facts.ts). */
export interface RoutingTable {
  accounts: RoutableAccount[];
  routes: RoutingRule[];
}

/** An account a payment may go to, its credentials opened: for the pipeline's processor call only. */
export interface RoutedAccount {
  /** null: the built-in sandbox account of a merchant without accounts (sandbox mode only). */
  id: number | null;
  name: string;
  connector: ConnectorName;
  environment: ProcessorEnvironment;
  merchantAccount: string;
  credentials: AdyenCredentials | null;
}

export interface PaymentToRoute {
  currency: string;
  brand?: CardBrand;
  amountMinor: number;
  /** 0-99, the same for every attempt of one payment (the caller derives it from the attempt reference). */
  roll: number;
}

/** Where a merchant without accounts pays in sandbox mode: the sandbox connector, which moves no money. */
export const builtInSandboxAccount: RoutedAccount = Object.freeze({
  id: null,
  name: 'sandbox',
  connector: 'sandbox',
  environment: 'test',
  merchantAccount: 'sandbox',
  credentials: null,
});

/**
 * The credentials are opened when read: the pipeline reads them only to make an account's connector, which
 * it keeps (processors/directory.ts), so a payment does not decrypt every account routing lists.
 */
function routed(vault: CardVault, merchantId: number, account: RoutableAccount): RoutedAccount {
  let opened: AdyenCredentials | null | undefined;
  return {
    id: account.id,
    name: account.name,
    connector: account.connector,
    environment: account.environment,
    merchantAccount: account.merchantAccount,
    get credentials() {
      if (opened === undefined) opened = openCredentials(vault, { ...account, merchantId });
      return opened;
    },
  };
}

/** The rule's conditions other than its percentage hold for the payment. */
function conditionsHold(route: RoutingRule, payment: PaymentToRoute): boolean {
  return (
    (route.currency == null || route.currency === payment.currency) &&
    (route.cardBrand == null || route.cardBrand === payment.brand) &&
    (route.minAmountMinor == null || payment.amountMinor >= route.minAmountMinor) &&
    (route.maxAmountMinor == null || payment.amountMinor <= route.maxAmountMinor)
  );
}

/**
 * The first matching rule in order. Percentage rules share the payments matching them one after the other:
 * with A 30% then B 30% then C, A takes rolls 0-29, B 30-59 and C the rest (a rule without a percentage
 * takes everything still unclaimed).
 */
function firstMatch(routes: RoutingRule[], roll: number): RoutingRule | undefined {
  let claimed = 0;
  for (const route of routes) {
    if (route.percent == null) return route;
    if (roll >= claimed && roll < claimed + route.percent) return route;
    claimed += route.percent;
  }
  return undefined;
}

/**
 * The accounts to try for a payment, in failover order: the first matching rule's account, then the
 * accounts of the other rules whose conditions hold (percentages aside) in rule order, then the default.
 * Only enabled accounts of the mode's environment (live mode: live; sandbox mode: test) that accept the
 * currency. A merchant without enabled accounts pays through the built-in sandbox account in sandbox mode
 * and nowhere in live mode (an empty list).
 */
export function routeAccounts(
  vault: CardVault,
  merchantId: number,
  { accounts, routes }: RoutingTable,
  payment: PaymentToRoute,
  mode: Mode,
): RoutedAccount[] {
  if (accounts.length === 0) return mode === 'sandbox' ? [builtInSandboxAccount] : [];
  const environment: ProcessorEnvironment = mode === 'live' ? 'live' : 'test';
  const eligible = new Map(
    accounts
      .filter(
        (account) =>
          account.environment === environment &&
          (account.currencies.length === 0 || account.currencies.includes(payment.currency)),
      )
      .map((account) => [account.id, account]),
  );
  const matching = routes.filter((route) => conditionsHold(route, payment));
  const ids = [
    firstMatch(matching, payment.roll)?.accountId,
    ...matching.map((route) => route.accountId),
    accounts.find((account) => account.isDefault)?.id,
  ];
  const ordered = new Set<RoutableAccount>();
  for (const id of ids) {
    const account = id === undefined ? undefined : eligible.get(id);
    if (account) ordered.add(account);
  }
  return [...ordered].map((account) => routed(vault, merchantId, account));
}

/**
 * The account a payment was made through, enabled or not (its captures, refunds and notifications still
 * go there); null id: the built-in sandbox account. Null when the merchant has no such account.
 */
export async function accountById(
  em: EntityManager,
  vault: CardVault,
  merchantId: number,
  id: number | null,
): Promise<RoutedAccount | null> {
  if (id === null) return builtInSandboxAccount;
  const account = await em.findOne(ProcessorAccount, { id, merchantId });
  return account ? routed(vault, merchantId, account) : null;
}

interface ReadinessRow {
  merchant_id: number;
  username: string;
  sandbox_accounts: string[];
}

/**
 * Why live mode must refuse to start, or null: a merchant whose route (its rules and default) names a
 * sandbox account. A merchant without accounts is no reason: in live mode its card payments are refused
 * (NO_PROCESSOR_ACCOUNT), never sent to the sandbox, and its SEPA debits go on.
 */
export async function liveRefusal(em: EntityManager): Promise<string | null> {
  const rows = await executeParameterized<ReadinessRow>(em, liveReadiness, []);
  const reasons = rows.map(
    (row) =>
      `merchant ${row.merchant_id} (${row.username}) routes to the sandbox account(s) ${row.sandbox_accounts.join(', ')}`,
  );
  return reasons.length === 0 ? null : `live mode refused: ${reasons.join('; ')}`;
}
