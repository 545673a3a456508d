import { z } from 'zod';
import type { ChargebackStatus } from './chargeback-statuses.ts';
import { amountInput, optionalText, positiveId } from './primitives.ts';

export * from './chargeback-statuses.ts';

const transactionIdText = z
  .union([z.number(), z.string()])
  .transform(String)
  .pipe(
    z
      .string()
      .trim()
      .regex(/^\d{1,15}$/, 'must be a transaction id'),
  );

/** A rehearsal dispute of the merchant's own captured card sale (ours, sandbox only). */
export const createSandboxChargebackInput = z.object({
  transactionId: transactionIdText,
  /** Defaults to the sale's captured amount; never more than it. */
  amount: amountInput.optional(),
  reasonCode: optionalText(64),
  reason: optionalText(4000),
});
export type CreateSandboxChargebackInput = z.input<typeof createSandboxChargebackInput>;

/** What the sandbox lets a merchant play the issuer's part in: a request for more, or the decision. */
export const sandboxChargebackMoves = [
  'PENDING_MERCHANT_RESPONSE',
  'COMPLETED_WON',
  'COMPLETED_LOST',
] as const;

export const moveSandboxChargebackInput = z.object({
  chargebackId: positiveId,
  status: z.enum(sandboxChargebackMoves, {
    error: `must be one of ${sandboxChargebackMoves.join(', ')}`,
  }),
});
export type MoveSandboxChargebackInput = z.input<typeof moveSandboxChargebackInput>;

export const chargebackIdInput = z.object({ chargebackId: positiveId });

export const chargebackListQuery = z.object({ transactionId: transactionIdText.optional() });

/** The largest evidence file the facade hands on; core applies the mode's own limit (live 9 MB, sandbox 0.2 MB). */
export const maxEvidenceBytes = 9 * 1024 * 1024;

/** One representment file, base64 over tRPC; its type is read from its content, never from its name. */
export const uploadEvidenceInput = z.object({
  chargebackId: positiveId,
  content: z.base64().max(Math.ceil(maxEvidenceBytes / 3) * 4 + 4, 'must be at most 9 MB'),
});
export type UploadEvidenceInput = z.input<typeof uploadEvidenceInput>;

export type EvidenceMediaType = 'application/pdf' | 'image/tiff' | 'image/png' | 'image/jpeg';

export interface ChargebackEvidence {
  evidenceId: number;
  mediaType: EvidenceMediaType;
  size: number;
  sha256: string;
  uploadDate: string;
}

/** A chargeback as the merchant reads it (ours: the original shows disputes in its console only). */
export interface Chargeback {
  chargebackId: number;
  transactionId: string;
  merchantTransactionId?: string;
  amount: number;
  currency: string;
  status: ChargebackStatus;
  reasonCode?: string;
  reason?: string;
  /** Where the dispute came from: the sandbox's rehearsal, or the processor that reported it. */
  source: 'SANDBOX' | 'PROCESSOR';
  chargebackDate: string;
  lastUpdateDate: string;
  evidence: ChargebackEvidence[];
}

export interface ChargebackList {
  chargebacks: Chargeback[];
}
