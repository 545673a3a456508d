import { type EntityManager, UniqueConstraintViolationException } from '@mikro-orm/postgresql';
import {
  type BillingContact,
  brandOf,
  type CardBrand,
  type CardResponse,
  type createShopperInput,
  DomainError,
  type EcpAccount,
  type EcpAccountType,
  publicEcpAccount,
  type RemovedCard,
  type SepaDirectDebitInfo,
  type ShopperDeletion,
  type ShopperFields,
  shopperFieldNames,
  shortDate,
  type updateShopperInput,
  type VaultedShopper,
} from '@paywire/contracts';
import type { z } from 'zod';
import { achMandate } from '../ach/accounts.ts';
import { callNow } from '../clock/clock.ts';
import type { MerchantContext } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized } from '../db/wire.ts';
import { ipnDate, recordEvent } from '../ipn/events.ts';
import { recordChange } from '../security/audit/trail.ts';
import { bindings } from '../security/card-vault.ts';
import { type CardMaterial, consumeToken } from '../tokens/service.ts';
import { Shopper, StoredCard } from './entities.ts';
import {
  cardsMatching,
  eraseMandates,
  lastPaymentCard,
  mandatesOf,
  newestAchAccountOf,
  removeCards,
  sourcesInUse,
  vaultShopperCard,
} from './queries.ts';

type CreateShopper = z.output<typeof createShopperInput>;
type UpdateShopper = z.output<typeof updateShopperInput>;
type CreditCardInfo = NonNullable<NonNullable<CreateShopper['paymentSources']>['creditCardInfo']>[number];
type UpdatedCardInfo = NonNullable<NonNullable<UpdateShopper['paymentSources']>['creditCardInfo']>[number];

export function cardResponse(card: CardFacts): CardResponse {
  return {
    cardLastFourDigits: card.lastFour,
    cardType: card.brand as CardBrand,
    cardSubType: card.cardSubType as CardResponse['cardSubType'],
    cardCategory: card.cardCategory,
    expirationMonth: card.expirationMonth,
    expirationYear: card.expirationYear,
  };
}

/** What responses and events show of a vaulted card. */
export type CardFacts = Pick<
  StoredCard,
  'brand' | 'lastFour' | 'expirationMonth' | 'expirationYear' | 'cardSubType' | 'cardCategory'
>;

/** A card as the vault keeps it: the number sealed and fingerprinted, the rest reduced to its facts. */
export interface VaultableCard extends CardFacts {
  fingerprint: string;
  /** The number's fingerprints under the other live fingerprint keys: the shopper's card under one is this card. */
  earlierFingerprints: string[];
  sealedNumber: string;
  billingContact: BillingContact | null;
}

export function vaultable(
  ctx: MerchantContext,
  card: CardMaterial,
  billingContact?: BillingContact,
): VaultableCard {
  const brand = brandOf(card.number) as CardBrand; // contracts refuse numbers of no known brand
  const profile = ctx.cardProfile({ number: card.number, brand });
  const [fingerprint, ...earlierFingerprints] = ctx.vault.fingerprints(card.number);
  return {
    fingerprint,
    earlierFingerprints,
    sealedNumber: ctx.vault.seal(card.number, bindings.card(ctx.merchantId, fingerprint)),
    brand,
    lastFour: card.number.slice(-4),
    expirationMonth: card.expirationMonth,
    expirationYear: card.expirationYear,
    cardSubType: profile.cardSubType,
    cardCategory: profile.cardCategory,
    billingContact: billingContact ?? null,
  };
}

/** A vaulted card's parameters to `upsertVaultedCard` (queries.ts). */
export function vaultCardParameters(merchantId: number, card: VaultableCard): unknown[] {
  return [
    merchantId,
    card.fingerprint,
    card.sealedNumber,
    card.brand,
    card.lastFour,
    card.expirationMonth,
    card.expirationYear,
    card.cardSubType,
    card.cardCategory,
    card.billingContact === null ? null : JSON.stringify(card.billingContact),
    card.earlierFingerprints,
  ];
}

const noShopperWithMerchantId = (merchantShopperId: string) =>
  new DomainError('SHOPPER_NOT_FOUND', `no vaulted shopper has merchantShopperId ${merchantShopperId}`);

export async function findShopper(em: EntityManager, merchantId: number, id: number): Promise<Shopper> {
  const shopper = await em.findOne(Shopper, { id, merchantId, deletedAt: null });
  if (!shopper)
    throw new DomainError('SHOPPER_NOT_FOUND', `vaulted shopper ${id} was not found`, {
      name: 'vaultedShopperId',
      messageValue: String(id),
    });
  return shopper;
}

/** The card a returning shopper is charged with when the request names none: the newest one. */
export async function defaultCard(em: EntityManager, shopper: Shopper): Promise<StoredCard> {
  const card = await em.findOne(StoredCard, { shopper, removedAt: null }, { orderBy: { id: 'desc' } });
  if (!card)
    throw new DomainError('INVALID_PAYMENT_DETAILS', 'the vaulted shopper has no card to charge', {
      name: 'vaultedShopperId',
    });
  return card;
}

/** One of the shopper's vaulted cards, by id (a subscription's card). */
export async function shopperCard(em: EntityManager, shopper: Shopper, cardId: number): Promise<StoredCard> {
  const card = await em.findOne(StoredCard, { id: cardId, shopper, removedAt: null });
  if (!card) throw new DomainError('INVALID_PAYMENT_DETAILS', 'the card to charge is no longer vaulted');
  return card;
}

export function newShopper(em: EntityManager, merchantId: number, fields: Partial<ShopperFields>): Shopper {
  return em.create(Shopper, { merchantId, ...pickFields(fields) });
}

export function pickFields(
  fields: Partial<ShopperFields>,
): Partial<Record<(typeof shopperFieldNames)[number], string>> {
  return Object.fromEntries(
    shopperFieldNames.filter((name) => fields[name] !== undefined).map((name) => [name, fields[name]]),
  );
}

/** The cards a request sends, tokens spent: read before anything is written, as a bad token fails the call. */
async function cardsSent(ctx: MerchantContext, em: EntityManager, sources: CreditCardInfo[], now: Date) {
  const cards: { card: CardMaterial; billingContact: BillingContact | undefined }[] = [];
  for (const [index, source] of sources.entries()) {
    const card = source.creditCard
      ? { number: source.creditCard.cardNumber, ...source.creditCard }
      : await consumeToken(
          ctx,
          em,
          source.pfToken ?? '',
          now,
          `paymentSources.creditCardInfo.${index}.pfToken`,
        );
    cards.push({ card, billingContact: source.billingContactInfo });
  }
  return cards;
}

/**
 * Writes the shopper, removes the cards an update marks with status D, then vaults the cards it sends
 * (shoppers/queries.ts: a card sent twice is kept once), so a card removed and sent again is vaulted anew.
 */
async function saveShopper(
  ctx: MerchantContext,
  em: EntityManager,
  shopper: Shopper,
  input: CreateShopper | UpdateShopper,
  now: Date,
): Promise<void> {
  const sources: UpdatedCardInfo[] = input.paymentSources?.creditCardInfo ?? [];
  const added = sources.filter((source): source is CreditCardInfo => source.status === undefined);
  const cards = await cardsSent(ctx, em, added, now);
  await flushShopper(em, input.merchantShopperId);
  for (const [index, source] of sources.entries())
    if (source.status === 'D') await removeCard(ctx, em, shopper, source, index, now);
  for (const { card, billingContact } of cards) await vaultCard(ctx, em, shopper, card, billingContact);
  // An ECP account is kept as the shopper's ACH mandate, which its later debits use (docs/ach.md).
  const ecp = input.paymentSources?.ecpInfo?.ecp;
  if (ecp) await achMandate(ctx, em, shopper, ecp, now);
}

/** Refuses to remove payment sources that a subscription may still charge or a pending debit still needs. */
async function assertSourcesUnused(
  em: EntityManager,
  shopper: Shopper,
  cardIds: number[] | null,
  property: string,
): Promise<void> {
  const [use] = await executeParameterized<{ subscribed: boolean; debiting: boolean }>(em, sourcesInUse, [
    shopper.id,
    shopper.merchantId,
    cardIds,
  ]);
  const reason = use?.subscribed
    ? 'an active or suspended subscription still charges it'
    : use?.debiting
      ? 'a SEPA debit of the shopper is still pending'
      : undefined;
  if (reason)
    throw new DomainError('VALIDATION_GENERAL_FAILURE', `${property}: cannot be deleted, ${reason}`, {
      name: property,
    });
}

/**
 * Removes the shopper's cards of the named type and last four digits (docs/conformance.md, Deleting shoppers
 * and cards): their numbers leave the database in this transaction, audited.
 */
async function removeCard(
  ctx: MerchantContext,
  em: EntityManager,
  shopper: Shopper,
  source: RemovedCard,
  index: number,
  now: Date,
): Promise<void> {
  const property = `paymentSources.creditCardInfo.${index}.creditCard`;
  const { cardType, cardLastFourDigits } = source.creditCard;
  const rows = await executeParameterized<{ id: string }>(em, cardsMatching, [
    shopper.id,
    cardType,
    cardLastFourDigits,
  ]);
  if (rows.length === 0)
    throw new DomainError(
      'VALIDATION_GENERAL_FAILURE',
      `${property}: the shopper has no ${cardType} card ending in ${cardLastFourDigits}`,
      { name: property, messageValue: `${cardType} ${cardLastFourDigits}` },
    );
  const cardIds = rows.map((row) => Number(row.id));
  await assertSourcesUnused(em, shopper, cardIds, property);
  await executeParameterized(em, removeCards, [shopper.id, now, cardIds]);
  for (const id of cardIds) await recordChange(ctx, em, 'shopper-card.remove', `card:${id}`);
}

/** Vaults a card for a written shopper (shoppers/queries.ts: a card sent twice is kept once); its id. */
export async function vaultCard(
  ctx: MerchantContext,
  em: EntityManager,
  shopper: Shopper,
  card: CardMaterial,
  billingContact?: BillingContact,
): Promise<number> {
  const [row] = await executeParameterized<{ id: number }>(em, vaultShopperCard, [
    shopper.id,
    ...vaultCardParameters(ctx.merchantId, vaultable(ctx, card, billingContact)),
  ]);
  return Number(row?.id);
}

/** Flushes, turning a reused merchantShopperId into a validation error rather than a 500. */
async function flushShopper(em: EntityManager, merchantShopperId: string | null | undefined): Promise<void> {
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) {
      throw new DomainError(
        'VALIDATION_GENERAL_FAILURE',
        'merchantShopperId: is already used by another shopper',
        {
          name: 'merchantShopperId',
          messageValue: merchantShopperId ?? '',
        },
      );
    }
    throw error;
  }
}

/** The vaulted shopper's mandates, as its paymentSources.sepaDirectDebitInfo shows them. */
export async function sepaDirectDebitInfo(
  em: EntityManager,
  shopper: { id: number; merchantId: number },
): Promise<SepaDirectDebitInfo[]> {
  const rows = await executeParameterized<{
    reference: string;
    iban_first_four: string;
    iban_last_four: string;
    accepted_at: Date;
  }>(em, mandatesOf, [shopper.id, shopper.merchantId]);
  return rows.map((row) => ({
    sepaDirectDebit: {
      ibanFirstFour: row.iban_first_four,
      ibanLastFour: row.iban_last_four,
      mandateId: row.reference,
      mandateDate: shortDate(new Date(row.accepted_at)),
    },
  }));
}

/** The vaulted shopper's newest ECP account, as its paymentSources.ecpInfo shows it. */
async function ecpInfo(em: EntityManager, shopper: Shopper): Promise<{ ecp: EcpAccount } | undefined> {
  const [row] = await executeParameterized<{
    iban_last_four: string;
    routing_number: string;
    account_type: EcpAccountType;
  }>(em, newestAchAccountOf, [shopper.id, shopper.merchantId]);
  return row && { ecp: publicEcpAccount(row.account_type, row.iban_last_four, row.routing_number) };
}

export async function presentShopper(em: EntityManager, shopper: Shopper): Promise<VaultedShopper> {
  const cards = await em.find(StoredCard, { shopper, removedAt: null }, { orderBy: { id: 'asc' } });
  const [last] = await executeParameterized<{
    card_id: string | null;
    wallet: { lastFour: string; brand: string } | null;
  }>(em, lastPaymentCard, [shopper.id]);
  // A wallet payment's card is on its transaction (0006-wallets), not in the vault.
  const lastCard =
    last && (cards.find((card) => card.id === Number(last.card_id)) ?? last.wallet ?? undefined);
  const mandates = await sepaDirectDebitInfo(em, shopper);
  const ecp = await ecpInfo(em, shopper);
  const fields = Object.fromEntries(
    shopperFieldNames.filter((name) => shopper[name] != null).map((name) => [name, shopper[name]]),
  );
  return {
    vaultedShopperId: shopper.id,
    ...fields,
    paymentSources: {
      creditCardInfo: cards.map((card) => ({
        ...(card.billingContact ? { billingContactInfo: card.billingContact } : {}),
        creditCard: cardResponse(card),
      })),
      ...(ecp ? { ecpInfo: ecp } : {}),
      ...(mandates.length > 0 ? { sepaDirectDebitInfo: mandates } : {}),
    },
    ...(lastCard
      ? {
          lastPaymentInfo: {
            paymentMethod: 'CC' as const,
            creditCard: { cardLastFourDigits: lastCard.lastFour, cardType: lastCard.brand as CardBrand },
          },
        }
      : {}),
  };
}

/** The Extended API's shopper columns beyond the vaulted shopper's fields (orders/extended.ts). */
export type ExtendedShopperColumns = Partial<
  Pick<Shopper, 'title' | 'fax' | 'storeId' | 'locale' | 'webInfo'>
>;

export async function createShopper(
  ctx: MerchantContext,
  input: CreateShopper,
  extended: ExtendedShopperColumns = {},
): Promise<VaultedShopper> {
  return inTransaction(ctx.em, async (em) => {
    const now = await callNow(ctx, em);
    const shopper = newShopper(em, ctx.merchantId, input);
    em.assign(shopper, extended);
    await saveShopper(ctx, em, shopper, input, now);
    return presentShopper(em, shopper);
  });
}

export async function updateShopper(ctx: MerchantContext, input: UpdateShopper): Promise<VaultedShopper> {
  return inTransaction(ctx.em, async (em) => {
    const now = await callNow(ctx, em);
    const shopper = await findShopper(em, ctx.merchantId, input.vaultedShopperId);
    em.assign(shopper, pickFields(input));
    await saveShopper(ctx, em, shopper, input, now);
    return presentShopper(em, shopper);
  });
}

/**
 * Deletes a vaulted shopper (docs/conformance.md, Deleting shoppers and cards): its cards' numbers, its
 * mandates' IBANs and its personal data leave the database at once; the row stays, emptied, for the transactions that name it. Sends
 * ShopperDeleted where configured and is audited, all in one transaction.
 */
export async function deleteShopper(ctx: MerchantContext, id: number): Promise<ShopperDeletion> {
  return inTransaction(ctx.em, async (em) => {
    const now = await callNow(ctx, em);
    const shopper = await findShopper(em, ctx.merchantId, id);
    await assertSourcesUnused(em, shopper, null, 'vaultedShopperId');
    const { merchantShopperId } = shopper;
    await executeParameterized(em, removeCards, [shopper.id, now, null]);
    await executeParameterized(em, eraseMandates, [shopper.id]);
    em.assign(shopper, {
      ...Object.fromEntries(shopperFieldNames.map((name) => [name, null])),
      title: null,
      fax: null,
      storeId: null,
      locale: null,
      webInfo: null,
      deletedAt: now,
    });
    await em.flush();
    await recordEvent(ctx, em, 'ShopperDeleted', {
      accountId: shopper.id,
      merchantShopperId: merchantShopperId ?? '',
      transactionDate: ipnDate(now),
    });
    await recordChange(ctx, em, 'shopper.delete', `shopper:${shopper.id}`);
    return { description: `Shopper ID ${shopper.id} and its payment data have been deleted.` };
  });
}

/** Deletes the vaulted shopper the merchant knows by its own id. */
export async function deleteShopperByMerchantId(
  ctx: MerchantContext,
  merchantShopperId: string,
): Promise<ShopperDeletion> {
  const shopper = await ctx.em.findOne(Shopper, { merchantId: ctx.merchantId, merchantShopperId });
  if (!shopper) throw noShopperWithMerchantId(merchantShopperId);
  return deleteShopper(ctx, shopper.id);
}

export async function getShopper(ctx: MerchantContext, id: number): Promise<VaultedShopper> {
  return presentShopper(ctx.em, await findShopper(ctx.em, ctx.merchantId, id));
}

export async function getShopperByMerchantId(
  ctx: MerchantContext,
  merchantShopperId: string,
): Promise<VaultedShopper> {
  const shopper = await ctx.em.findOne(Shopper, { merchantId: ctx.merchantId, merchantShopperId });
  if (!shopper) throw noShopperWithMerchantId(merchantShopperId);
  return presentShopper(ctx.em, shopper);
}
