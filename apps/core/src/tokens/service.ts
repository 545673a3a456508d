import { randomBytes } from 'node:crypto';
import { type EntityManager, LockMode } from '@mikro-orm/postgresql';
import {
  type BoundToken,
  type bindTokenInput,
  brandOf,
  type CardBrand,
  DomainError,
  type formOpeningInput,
  isExpired,
  type PrefillTokenInput,
  type TokenState,
  tokenLifetimeMinutes,
} from '@paywire/contracts';
import type { z } from 'zod';
import { addSeconds, callNow, merchantNow } from '../clock/clock.ts';
import type { CallContext, MerchantContext } from '../context.ts';
import { bindings } from '../security/card-vault.ts';
import { PaymentFieldsToken } from './entities.ts';

/** Card data in the clear, only in memory and only for the length of one call. */
export interface CardMaterial {
  number: string;
  securityCode?: string | undefined;
  expirationMonth: string;
  expirationYear: string;
}

const unusable = (property: string) =>
  new DomainError(
    'INVALID_PAYMENT_DETAILS',
    'the payment fields token is unknown, expired, used or has no card',
    { name: property },
  );

function newToken(ctx: MerchantContext, now: Date): PaymentFieldsToken {
  return ctx.em.create(PaymentFieldsToken, {
    token: randomBytes(24).toString('base64url'), // 192 bits, URL-safe
    merchantId: ctx.merchantId,
    expiresAt: addSeconds(now, tokenLifetimeMinutes * 60),
  });
}

export async function createToken(ctx: MerchantContext): Promise<string> {
  const token = newToken(ctx, await callNow(ctx, ctx.em));
  await ctx.em.flush();
  return token.token;
}

/**
 * A card's expiry (MM/YYYY) as card material, refused when it has passed by `now`: the hosted fields page shows
 * this inline, and a sale would only be declined later.
 */
function unexpiredCard(number: string, expDate: string, now: Date, securityCode?: string): CardMaterial {
  const [month, year] = expDate.split('/') as [string, string];
  if (isExpired(Number(month), Number(year), now)) {
    throw new DomainError('VALIDATION_GENERAL_FAILURE', 'expDate: the card has expired', {
      name: 'expDate',
      messageValue: expDate,
    });
  }
  return { number, ...(securityCode ? { securityCode } : {}), expirationMonth: month, expirationYear: year };
}

function sealOnto(ctx: CallContext, token: PaymentFieldsToken, card: CardMaterial): void {
  token.sealedCard = ctx.vault.seal(JSON.stringify(card), bindings.token(token.merchantId, token.token));
}

/** A new token carrying a card the merchant holds (docs/conformance.md, Hosted payment fields tokens). */
export async function prefillToken(ctx: MerchantContext, input: PrefillTokenInput): Promise<string> {
  const now = await callNow(ctx, ctx.em);
  const card = unexpiredCard(input.ccNumber, input.expDate, now);
  const token = newToken(ctx, now);
  sealOnto(ctx, token, card);
  await ctx.em.flush();
  return token.token;
}

/**
 * The token, locked until the caller's transaction ends, while it can still be used: known, unused and
 * unexpired by its merchant's clock (or by `now`, the calling merchant's). Locked, so that of a sale and a
 * binding, or of two sales, racing on one token, the second sees what the first did.
 */
async function lockUsable(
  ctx: CallContext,
  em: EntityManager,
  where: { token: string; merchantId?: number },
  now?: Date,
): Promise<{ token: PaymentFieldsToken; now: Date } | null> {
  const token = await em.findOne(PaymentFieldsToken, where, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!token || token.usedAt) return null;
  const at = now ?? (await merchantNow(em, token.merchantId, ctx.mode));
  return token.expiresAt > at ? { token, now: at } : null;
}

/**
 * The hosted fields page asks before it shows the form: the token must be known, unused and unexpired by
 * its merchant's clock (bound or not). The first origin that frames the form keeps it: a token taken from
 * the merchant's checkout cannot be framed on another site afterwards.
 */
export async function openForm(
  ctx: CallContext,
  input: z.output<typeof formOpeningInput>,
): Promise<TokenState> {
  return ctx.em.transactional(async (em) => {
    const usable = await lockUsable(ctx, em, { token: input.token });
    if (!usable) return { usable: false };
    const { token } = usable;
    if (input.origin === undefined) return { usable: true };
    token.embeddingOrigin ??= input.origin;
    return { usable: token.embeddingOrigin === input.origin };
  });
}

/** The shopper's browser binds card data; the token itself is the credential. Rebinding replaces the card. */
export async function bindToken(
  ctx: CallContext,
  input: z.output<typeof bindTokenInput>,
): Promise<BoundToken> {
  return ctx.em.transactional(async (em) => {
    // A binding racing the sale that spends the token must not put a card (and CVV) back on it.
    const usable = await lockUsable(ctx, em, { token: input.token });
    if (!usable) throw unusable('token');
    const { token, now } = usable;
    sealOnto(ctx, token, unexpiredCard(input.ccNumber, input.expDate, now, input.cvv));
    const brand = brandOf(input.ccNumber) as CardBrand;
    return {
      ccType: brand,
      last4Digits: input.ccNumber.slice(-4),
      issuingCountry: ctx.cardProfile({ number: input.ccNumber, brand }).issuingCountry,
    };
  });
}

/**
 * Takes the card out of a token for one transaction: the token is spent and its sealed card (with CVV)
 * erased. Of concurrent sales with one token one spends it; the others, once it commits, find it used.
 */
export async function consumeToken(
  ctx: MerchantContext,
  em: EntityManager,
  value: string,
  now: Date,
  property = 'pfToken',
): Promise<CardMaterial> {
  const token = (await lockUsable(ctx, em, { token: value, merchantId: ctx.merchantId }, now))?.token;
  if (!token?.sealedCard) throw unusable(property);
  const card = JSON.parse(
    ctx.vault.open(token.sealedCard, bindings.token(token.merchantId, token.token)),
  ) as CardMaterial;
  token.usedAt = now;
  token.sealedCard = null;
  return card;
}
