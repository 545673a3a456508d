import type { EntityManager } from '@mikro-orm/postgresql';
import {
  type AuditAction,
  type addProcessorAccountInput,
  DomainError,
  type disableProcessorAccountInput,
  type listProcessorAccountsInput,
  type ProcessorAccountView,
  type ProcessorRouteRule,
  type ProcessorSetup,
  type routeProcessorsInput,
} from '@paywire/contracts';
import type { z } from 'zod';
import { inTransaction } from '../../db/transaction.ts';
import { Merchant } from '../../merchants/entities.ts';
import { type AuditEntry, type AuditOrigin, recordAudit } from '../../security/audit/trail.ts';
import type { CardVault } from '../../security/card-vault.ts';
import { openCredentials, sealCredentials } from './credentials.ts';
import { ProcessorAccount, ProcessorRoute } from './entities.ts';

/**
 * Processor account management, for admin callers (`processors.*`) and the operator CLI (npm run
 * processor). Each command is one transaction: a refused one writes nothing.
 */

const invalid = (name: string, problem: string, messageValue?: string) =>
  new DomainError('VALIDATION_GENERAL_FAILURE', `${name}: ${problem}`, {
    name,
    ...(messageValue === undefined ? {} : { messageValue }),
  });

async function assertMerchant(em: EntityManager, merchantId: number): Promise<void> {
  if (!(await em.findOne(Merchant, merchantId)))
    throw invalid('merchantId', 'no such merchant', String(merchantId));
}

function viewOf(vault: CardVault, account: ProcessorAccount): ProcessorAccountView {
  const apiKey = openCredentials(vault, account)?.apiKey;
  return {
    id: account.id,
    name: account.name,
    connector: account.connector,
    environment: account.environment,
    merchantAccount: account.merchantAccount,
    currencies: account.currencies,
    default: account.isDefault,
    enabled: account.enabled,
    hasCredentials: apiKey !== undefined,
    apiKeyLastFour: apiKey && apiKey.length >= 12 ? apiKey.slice(-4) : null,
    createdAt: account.createdAt.toISOString(),
    disabledAt: account.disabledAt?.toISOString() ?? null,
  };
}

function ruleOf(route: ProcessorRoute, accounts: Map<number, ProcessorAccount>): ProcessorRouteRule {
  const rule: ProcessorRouteRule = {
    account: accounts.get(route.accountId)?.name ?? String(route.accountId),
  };
  if (route.currency) rule.currency = route.currency;
  if (route.cardBrand) rule.cardBrand = route.cardBrand;
  if (route.minAmountMinor != null) rule.minAmountMinor = route.minAmountMinor;
  if (route.maxAmountMinor != null) rule.maxAmountMinor = route.maxAmountMinor;
  if (route.percent != null) rule.percent = route.percent;
  return rule;
}

/**
 * A new account, its credentials sealed. It becomes the merchant's default when asked, or when the
 * merchant has no enabled default (so a first account is used without a rule); a new default replaces
 * the old.
 */
export function addProcessorAccount(
  em: EntityManager,
  vault: CardVault,
  input: z.output<typeof addProcessorAccountInput>,
  origin: AuditOrigin,
): Promise<ProcessorAccountView> {
  return inTransaction(em, async (em) => {
    await assertMerchant(em, input.merchantId);
    const { merchantId, name } = input;
    if (await em.findOne(ProcessorAccount, { merchantId, name }))
      throw invalid('name', 'the merchant already has a processor account of this name', name);
    const currentDefault = await em.findOne(ProcessorAccount, { merchantId, isDefault: true });
    const isDefault = input.default ?? !currentDefault?.enabled;
    if (isDefault && currentDefault) {
      currentDefault.isDefault = false;
      await em.flush(); // before the insert: one default per merchant is a unique index
    }
    const account = em.create(ProcessorAccount, {
      merchantId,
      name,
      connector: input.connector,
      environment: input.environment,
      merchantAccount: input.merchantAccount,
      currencies: input.currencies,
      sealedCredentials: input.credentials ? sealCredentials(vault, input, input.credentials) : null,
      isDefault,
      enabled: true,
      createdAt: new Date(),
      disabledAt: null,
    });
    await em.flush();
    await recordAudit(em, origin, accountEntry('processor-account.add', account));
    return viewOf(vault, account);
  });
}

/** The event of a change to one account, on its merchant's chain. */
const accountEntry = (action: AuditAction, account: ProcessorAccount): AuditEntry => ({
  merchantId: account.merchantId,
  action,
  object: `processor-account:${account.id}`,
  outcome: 'success',
});

/** The merchant's accounts (never their credentials) and its rules in order. */
export async function listProcessorAccounts(
  em: EntityManager,
  vault: CardVault,
  input: z.output<typeof listProcessorAccountsInput>,
): Promise<ProcessorSetup> {
  await assertMerchant(em, input.merchantId);
  const accounts = await em.find(
    ProcessorAccount,
    { merchantId: input.merchantId },
    { orderBy: { id: 'asc' } },
  );
  const routes = await em.find(
    ProcessorRoute,
    { merchantId: input.merchantId },
    { orderBy: { position: 'asc' } },
  );
  const byId = new Map(accounts.map((account) => [account.id, account]));
  return {
    accounts: accounts.map((account) => viewOf(vault, account)),
    routes: routes.map((route) => ruleOf(route, byId)),
  };
}

/**
 * Takes the account out of routing. It stays, so payments it authorized can still be captured, refunded and
 * notified; disabling it again changes nothing.
 */
export function disableProcessorAccount(
  em: EntityManager,
  vault: CardVault,
  input: z.output<typeof disableProcessorAccountInput>,
  origin: AuditOrigin,
): Promise<ProcessorAccountView> {
  return inTransaction(em, async (em) => {
    const account = await em.findOne(ProcessorAccount, { merchantId: input.merchantId, name: input.name });
    if (!account)
      throw new DomainError(
        'PROCESSOR_ACCOUNT_NOT_FOUND',
        `merchant ${input.merchantId} has no processor account ${input.name}`,
      );
    if (account.enabled) {
      account.enabled = false;
      account.disabledAt = new Date();
    }
    await recordAudit(em, origin, accountEntry('processor-account.disable', account));
    return viewOf(vault, account);
  });
}

/**
 * Replaces the merchant's rules with these, in order. Each rule must name an enabled account of the
 * merchant that accepts the rule's currency.
 */
export function routeProcessors(
  em: EntityManager,
  vault: CardVault,
  input: z.output<typeof routeProcessorsInput>,
  origin: AuditOrigin,
): Promise<ProcessorSetup> {
  return inTransaction(em, async (em) => {
    await assertMerchant(em, input.merchantId);
    const { merchantId } = input;
    const accounts = await em.find(ProcessorAccount, { merchantId });
    const byName = new Map(accounts.map((account) => [account.name, account]));
    const routes = input.rules.map((rule, index) => {
      const account = byName.get(rule.account);
      const at = `rules.${index}`;
      if (!account)
        throw invalid(`${at}.account`, 'the merchant has no processor account of this name', rule.account);
      if (!account.enabled) throw invalid(`${at}.account`, 'is disabled', rule.account);
      if (rule.currency && account.currencies.length > 0 && !account.currencies.includes(rule.currency))
        throw invalid(`${at}.currency`, `account ${account.name} does not accept it`, rule.currency);
      return em.create(ProcessorRoute, {
        merchantId,
        position: index + 1,
        accountId: account.id,
        currency: rule.currency ?? null,
        cardBrand: rule.cardBrand ?? null,
        minAmountMinor: rule.minAmountMinor ?? null,
        maxAmountMinor: rule.maxAmountMinor ?? null,
        percent: rule.percent ?? null,
      });
    });
    // The old rules go first: positions are unique per merchant.
    await em.nativeDelete(ProcessorRoute, { merchantId });
    await em.flush();
    await recordAudit(em, origin, {
      merchantId,
      action: 'processor-routing.set',
      object: `merchant:${merchantId}`,
      outcome: 'success',
    });
    const byId = new Map(accounts.map((account) => [account.id, account]));
    return {
      accounts: accounts.sort((a, b) => a.id - b.id).map((account) => viewOf(vault, account)),
      routes: routes.map((route) => ruleOf(route, byId)),
    };
  });
}
