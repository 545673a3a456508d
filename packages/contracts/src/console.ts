import { z } from 'zod';
import { credentialsInput } from './merchants.ts';
import type { ConsolePermissions } from './partners.ts';
import { currencyInput, pageSize, positiveId, text } from './primitives.ts';

/**
 * The merchant console's own calls (apps/console through the facade's /console/api): its sessions, and the
 * two reads the public interface has no endpoint for, the transaction search and the dashboard's figures.
 * Everything else the console shows or changes goes through the public /services/2 endpoints.
 */

/** A console sign-in: the merchant's credentials, checked (and limited) like HTTP Basic's. */
export const consoleSignInInput = credentialsInput;

/** The session token the console's cookie holds: 32 random bytes, base64url. */
export const consoleSessionInput = z.object({ token: z.string().regex(/^[A-Za-z0-9_-]{43}$/) });

export type ConsoleSignIn =
  | { outcome: 'opened'; merchantId: number; token: string; permissions: ConsolePermissions | null }
  | { outcome: 'refused' }
  | { outcome: 'limited'; retryAfterSeconds: number };

/** A live session's merchant; null once it ended, idled out or its merchant's password changed. */
export interface ConsoleSession {
  merchantId: number;
  username: string;
  /** A console user's permissions (partners.ts); null for the merchant's own credentials, which may do all. */
  permissions: ConsolePermissions | null;
}

const dayInput = z.iso.date('must be a date, YYYY-MM-DD');
const searchStatuses = ['AUTHORIZED', 'CAPTURED', 'REVERSED', 'REFUNDED', 'PARTIALLY_REFUNDED'] as const;

/** The console's transaction search: every given criterion must match; newest first, after a cursor. */
export const transactionSearchInput = z.object({
  transactionId: positiveId.optional(),
  merchantTransactionId: text(50).optional(),
  lastFour: z
    .string()
    .regex(/^[0-9]{4}$/, 'must be four digits')
    .optional(),
  amount: z
    .string()
    .regex(/^[0-9]{1,12}(\.[0-9]{1,3})?$/, 'must be a decimal amount, e.g. 25.50')
    .optional(),
  currency: currencyInput.optional(),
  status: z.enum(searchStatuses, `must be one of ${searchStatuses.join(', ')}`).optional(),
  from: dayInput.optional(),
  to: dayInput.optional(),
  pagesize: pageSize,
  after: positiveId.optional(),
});
export type TransactionSearch = z.output<typeof transactionSearchInput>;

/** A card transaction as the search lists it: the card's last four digits at most. */
export interface TransactionSummary {
  transactionId: number;
  merchantTransactionId: string | null;
  status: string;
  cardTransactionType: string;
  currency: string;
  amount: number;
  capturedAmount: number;
  refundedAmount: number;
  cardLastFourDigits: string | null;
  cardType: string | null;
  date: string;
}

export interface TransactionSearchPage {
  transactions: TransactionSummary[];
  /** Pass as `after` for the next page; absent on the last. */
  nextAfter?: number;
}

export const dashboardInput = z.object({
  days: z.coerce
    .number({ error: 'must be an integer from 1 to 90' })
    .int('must be an integer from 1 to 90')
    .min(1, 'must be an integer from 1 to 90')
    .max(90, 'must be an integer from 1 to 90')
    .default(30),
});

/** The dashboard's figures over the last `days` days of the merchant's clock, by UTC day. */
export interface Dashboard {
  days: string[];
  /** Captured sales per day and currency, in the currency's decimals. */
  volume: { currency: string; amounts: number[] }[];
  /** Authorizations approved and declined per day (same order as `days`). */
  approvals: { approved: number[]; declined: number[] };
  declinesByReason: { reason: string; count: number }[];
  /** IPN deliveries by state over the period. */
  deliveries: { state: string; count: number }[];
}
