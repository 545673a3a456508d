import { z } from 'zod';
import { pageSize, positiveId } from './primitives.ts';

/** What the audit trail records (docs/security-audit.md): every change a person or a caller makes. */
export const auditActions = [
  'login',
  'password.set',
  'caller-credential.issue',
  'caller-credential.rotate',
  'caller-credential.revoke',
  'ipn-config.replace',
  'ipn-config.delete',
  'ipn-secret.read',
  'ipn-secret.rotate',
  'fraud-settings.replace',
  'processor-account.add',
  'processor-account.disable',
  'processor-routing.set',
  'capture',
  'reversal',
  'refund',
  'refund.cancel',
  'chargeback-evidence.upload',
  'shopper.delete',
  'shopper-card.remove',
  'key.rotate',
  'key.retire',
  'vendor.create',
  'vendor.update',
  'account-update.submit',
  'shopper-card.account-update',
  'partner-link.add',
  'partner-link.remove',
  'console-user.create',
  'wallet-keys.configure',
  'wallet-onboarding.update',
] as const;
export type AuditAction = (typeof auditActions)[number];

/**
 * merchant: its own Basic login, through the facade; caller: a caller credential; operator: a CLI; system:
 * core itself, for a change no call made (a worker retiring a data key).
 */
export const auditActorKinds = ['merchant', 'caller', 'operator', 'system'] as const;
export type AuditActorKind = (typeof auditActorKinds)[number];

export const auditOutcomes = ['success', 'failure'] as const;
export type AuditOutcome = (typeof auditOutcomes)[number];

/** A page of the merchant's events, newest first; `after` is the last seq of the previous page. */
export const auditEventQuery = z.object({
  pagesize: pageSize,
  after: positiveId.optional(),
});
export type AuditEventQuery = z.output<typeof auditEventQuery>;

/** One event as the merchant reads it: its place in the merchant's chain and what happened. */
export interface AuditEvent {
  seq: number;
  action: AuditAction;
  /** What it acted on, e.g. `transaction:1234`; null when nothing (a failed login). */
  object: string | null;
  outcome: AuditOutcome;
  actorKind: AuditActorKind;
  /** The merchant's id, a caller credential (`name (pwc_<id>)`) or an operator's name. */
  actor: string;
  clientAddress: string | null;
  requestId: string | null;
  occurredAt: string;
  /** SHA-256 over the previous event's hash and this event: the chain `npm run audit -- verify` checks. */
  hash: string;
}

export interface AuditEventPage {
  /** True when no event is older than this page's last. */
  lastPage: boolean;
  auditEvents: AuditEvent[];
}
