import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { type createAltTransactionInput, DomainError } from '@paywire/contracts';
import type { z } from 'zod';
import type { MerchantContext } from '../context.ts';
import { executeParameterized } from '../db/wire.ts';
import { accountFingerprintInput, bindings, type CardVault } from '../security/card-vault.ts';
import type { Shopper } from '../shoppers/entities.ts';
import { type DebitScheme, SepaMandate } from './entities.ts';
import { insertMandate } from './queries.ts';

/** Mandates: a shopper's authorization to debit one account, SEPA or ACH, its number sealed. */

/**
 * A mandate reference: 35 characters at most, of the SEPA character set; random so it reveals no count. An
 * ACH authorization's reference is made alike, with a prefix of its own.
 */
function newMandateReference(scheme: DebitScheme): string {
  return `${scheme === 'SEPA' ? 'PWM' : 'PWA'}${randomBytes(8).toString('hex').toUpperCase()}`;
}

/** The account a mandate authorizes debits of: an IBAN, or an ACH account number with its routing number. */
export interface MandateAccount {
  scheme: DebitScheme;
  /** Sealed; never shown beyond its first and last four. */
  number: string;
  routingNumber: string | null;
  accountType: string | null;
}

/** The shopper's mandate for this IBAN, made on first use. */
export function mandateFor(
  ctx: MerchantContext,
  em: EntityManager,
  shopper: Shopper,
  iban: string,
  now: Date,
): Promise<SepaMandate> {
  const account = { scheme: 'SEPA' as const, number: iban, routingNumber: null, accountType: null };
  return accountMandate(ctx, em, shopper, account, now);
}

/**
 * The shopper's mandate for this account, made on first use. Insert-or-nothing, then read: concurrent first
 * debits of one shopper and account share one mandate without locking the shopper.
 */
export async function accountMandate(
  ctx: MerchantContext,
  em: EntityManager,
  shopper: Shopper,
  account: MandateAccount,
  now: Date,
): Promise<SepaMandate> {
  // the account's fingerprints under every live fingerprint key: a mandate made before a rotation is found
  const [fingerprint, ...earlier] = ctx.vault.fingerprints(accountFingerprintInput(account));
  const known = () =>
    em.findOne(SepaMandate, { shopper, ibanFingerprint: { $in: [fingerprint, ...earlier] } });
  if (shopper.id !== undefined) {
    const mandate = await known();
    if (mandate) return mandate;
  }
  await em.flush(); // the shopper gets its id
  await executeParameterized(em, insertMandate, [
    ctx.merchantId,
    shopper.id,
    newMandateReference(account.scheme),
    fingerprint,
    ctx.vault.seal(account.number, bindings.mandate(ctx.merchantId, fingerprint)),
    account.number.slice(0, 4),
    account.number.slice(-4),
    now,
    account.scheme,
    account.routingNumber,
    account.accountType,
  ]);
  const mandate = await known();
  if (!mandate) throw new Error('the mandate was neither created nor found');
  return mandate;
}

/**
 * The IBAN a mandate debits, opened. A deleted shopper's mandates have none (erased with it; deletion waits
 * for its pending debits and subscriptions), so nothing can debit them again.
 */
export function mandateIban(vault: CardVault, mandate: SepaMandate): string {
  const { sealedIban, ibanFingerprint } = liveMandate(mandate);
  return vault.open(sealedIban, bindings.mandate(mandate.merchantId, ibanFingerprint));
}

/** A mandate's sealed account, refused when it was erased with its deleted shopper. */
export function liveMandate(mandate: SepaMandate): { sealedIban: string; ibanFingerprint: string } {
  if (!mandate.sealedIban || !mandate.ibanFingerprint) {
    throw new DomainError(
      'VALIDATION_GENERAL_FAILURE',
      `mandate ${mandate.reference} was erased with its deleted shopper and debits nothing`,
    );
  }
  return { sealedIban: mandate.sealedIban, ibanFingerprint: mandate.ibanFingerprint };
}

/**
 * The IBAN a returning shopper pays from when the request names none: the stored SEPA account whose first
 * and last four characters the request gives, else the one the shopper accepted a mandate for last.
 */
export async function storedIban(
  ctx: MerchantContext,
  em: EntityManager,
  shopper: Shopper,
  account: z.output<typeof createAltTransactionInput>['sepaDirectDebitTransaction'],
): Promise<string> {
  const [mandate] = await em.find(
    SepaMandate,
    {
      shopper,
      merchantId: ctx.merchantId,
      scheme: 'SEPA',
      ...(account?.ibanFirstFour ? { ibanFirstFour: account.ibanFirstFour } : {}),
      ...(account?.ibanLastFour ? { ibanLastFour: account.ibanLastFour } : {}),
    },
    { orderBy: { id: 'desc' }, limit: 1 },
  );
  if (!mandate) {
    throw new DomainError(
      'VALIDATION_GENERAL_FAILURE',
      `sepaDirectDebitTransaction.iban: is required: shopper ${shopper.id} has no stored SEPA account${
        account?.ibanFirstFour || account?.ibanLastFour ? ' with those first and last four characters' : ''
      }`,
      { name: 'sepaDirectDebitTransaction.iban' },
    );
  }
  return mandateIban(ctx.vault, mandate);
}
