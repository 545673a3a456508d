import type { ModificationOutcome, ModificationRequest, Processor } from '../processors/processor.ts';
import type { AttemptKind } from './attempts.ts';

export type ModificationKind = Exclude<AttemptKind, 'AUTHORIZE'>;

/** The processor call of a capture, reversal (cancel) or refund, by the attempt's reference (idempotent there). */
export function modify(
  processor: Processor,
  kind: ModificationKind,
  request: ModificationRequest,
): Promise<ModificationOutcome> {
  if (kind === 'CAPTURE') return processor.capture(request);
  if (kind === 'REFUND') return processor.refund(request);
  return processor.cancel(request);
}
