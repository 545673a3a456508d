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
  type TokenState,
  tokenLifetimeMinutes,
} from '@paywire/contracts';
import type { z } from 'zod';
import { addSeconds, callNow, merchantNow } from '../clock/clock.ts';
import type { CallContext, MerchantContext } from '../context.ts';
import type { CardMaterial } from '../shoppers/service.ts';
import { PaymentFieldsToken } from './entities.ts';

const unusable = (property: string) =>
  new DomainError(
    'INVALID_PAYMENT_DETAILS',
    'the payment fields token is unknown, expired, used or has no card',
    { name: property },
  );

export async function createToken(ctx: MerchantContext): Promise<string> {
  const now = await callNow(ctx, ctx.em);
  const token = randomBytes(24).toString('base64url'); // 192 bits, URL-safe
  ctx.em.create(PaymentFieldsToken, {
    token,
    merchantId: ctx.merchantId,
    expiresAt: addSeconds(now, tokenLifetimeMinutes * 60),
  });
  await ctx.em.flush();
  return token;
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
    const token = await em.findOne(
      PaymentFieldsToken,
      { token: input.token },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!token || token.usedAt) return { usable: false };
    if (token.expiresAt <= (await merchantNow(em, token.merchantId, ctx.mode))) return { usable: false };
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
    // Locked: a binding racing the sale that spends the token must not put a card (and CVV) back on it.
    const token = await em.findOne(
      PaymentFieldsToken,
      { token: input.token },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    const now = token && (await merchantNow(em, token.merchantId, ctx.mode));
    if (!token || !now || token.usedAt || token.expiresAt <= now) throw unusable('token');
    const [month, year] = input.expDate.split('/') as [string, string];
    // The hosted fields page shows this inline; a sale would only be declined later.
    if (isExpired(Number(month), Number(year), now)) {
      throw new DomainError('VALIDATION_GENERAL_FAILURE', 'expDate: the card has expired', {
        name: 'expDate',
        messageValue: input.expDate,
      });
    }
    const card: CardMaterial = {
      number: input.ccNumber,
      securityCode: input.cvv,
      expirationMonth: month,
      expirationYear: year,
    };
    token.sealedCard = ctx.vault.seal(JSON.stringify(card));
    const brand = brandOf(input.ccNumber) as CardBrand;
    return {
      ccType: brand,
      last4Digits: input.ccNumber.slice(-4),
      issuingCountry: ctx.acquirer.profile({ number: input.ccNumber, brand }).issuingCountry,
    };
  });
}

/**
 * Takes the card out of a token for one transaction: the token is spent and its sealed card (with CVV)
 * erased. The row is locked until the caller's transaction ends, so of concurrent sales with one token one
 * spends it and the others, once it commits, find it used.
 */
export async function consumeToken(
  ctx: MerchantContext,
  em: EntityManager,
  value: string,
  now: Date,
  property = 'pfToken',
): Promise<CardMaterial> {
  const token = await em.findOne(
    PaymentFieldsToken,
    { token: value, merchantId: ctx.merchantId },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  if (!token?.sealedCard || token.usedAt || token.expiresAt <= now) throw unusable(property);
  const card = JSON.parse(ctx.vault.open(token.sealedCard)) as CardMaterial;
  token.usedAt = now;
  token.sealedCard = null;
  return card;
}
