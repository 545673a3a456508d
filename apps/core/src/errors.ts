import { UniqueConstraintViolationException } from '@mikro-orm/postgresql';
import {
  DomainError,
  type ErrorBody,
  errorMessage,
  issuesToMessages,
  type TransactionIds,
  ValidationFailure,
} from '@paywire/contracts';
import type { TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import { isDatabaseUnavailable } from './db/unavailable.ts';

/** A failure stored under an idempotency key, answered again exactly as the first time. */
export class ReplayedFailure extends Error {
  readonly body: ErrorBody;

  constructor(body: ErrorBody) {
    super(body.message[0]?.description ?? 'replayed failure');
    this.name = 'ReplayedFailure';
    this.body = body;
  }
}

/** The public error body for whatever a procedure threw; causes our code did not expect become INTERNAL_ERROR. */
export function publicErrorBody(error: TRPCError, input: unknown): ErrorBody {
  const { cause } = error;
  if (cause instanceof DomainError) return { message: [cause.toMessage()] };
  if (cause instanceof ValidationFailure) return { message: cause.messages };
  if (cause instanceof ReplayedFailure) return cause.body;
  if (cause instanceof ZodError) return { message: issuesToMessages(cause.issues, input) };
  if (error.code === 'UNAUTHORIZED')
    return { message: [errorMessage('UNAUTHORIZED', 'no authenticated merchant')] };
  if (error.code === 'NOT_FOUND') return { message: [errorMessage('RESOURCE_NOT_FOUND', error.message)] };
  if (isDatabaseUnavailable(cause)) return { message: [databaseUnavailable().toMessage()] };
  return { message: [errorMessage('INTERNAL_ERROR', 'an unexpected error occurred; it has been logged')] };
}

/** The answer while the database is out of reach: "not now", with the facade's Retry-After. */
export const databaseUnavailable = () =>
  new DomainError('SERVICE_UNAVAILABLE', 'the database is unavailable; retry after the delay given');

/** A failure the domain decided on (a decline, a rule): the answer, not an accident. */
export function isDomainFailure(error: TRPCError): boolean {
  return error.cause instanceof DomainError || error.cause instanceof ValidationFailure;
}

export function isExpected(error: TRPCError): boolean {
  return isDomainFailure(error) || error.cause instanceof ReplayedFailure || error.cause instanceof ZodError;
}

/** A merchantTransactionId another of the merchant's transactions has is a validation error, not a 500. */
export function duplicateMerchantTransactionId(
  error: unknown,
  merchantTransactionId: string | null | undefined,
) {
  // MikroORM converts the driver's error; a statement run on the driver directly raises pg's own (23505).
  const unique =
    error instanceof UniqueConstraintViolationException ||
    (error instanceof Error && (error as { code?: unknown }).code === '23505');
  if (unique && (error as Error).message.includes('merchant_transaction_id_unique'))
    return merchantTransactionIdInUse(merchantTransactionId ?? '');
  return error;
}

/** The refusal of a merchantTransactionId another of the merchant's transactions has. */
export function merchantTransactionIdInUse(merchantTransactionId: string): DomainError {
  return new DomainError(
    'VALIDATION_GENERAL_FAILURE',
    'merchantTransactionId: is already used by another transaction',
    { name: 'merchantTransactionId', messageValue: merchantTransactionId },
  );
}

/** The merchant's transaction, by either of its ids, was not found (another merchant's looks the same). */
export function transactionNotFound(by: TransactionIds) {
  return new DomainError(
    'TRANSACTION_NOT_FOUND',
    by.transactionId === undefined
      ? `no transaction with merchantTransactionId ${by.merchantTransactionId} was found`
      : `transaction ${by.transactionId} was not found`,
  );
}
