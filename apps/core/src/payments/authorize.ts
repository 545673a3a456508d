import type { EntityManager } from '@mikro-orm/postgresql';
import type { RoutedAccount } from '../processors/accounts/routing.ts';
import type { ProcessorDirectory } from '../processors/directory.ts';
import {
  type Approval,
  type AuthorizationRequest,
  type Decline,
  type Processor,
  ProcessorUnavailable,
} from '../processors/processor.ts';
import { moveAttemptTo } from './attempts.ts';

/** An authorization's call: its request (with the attempt's reference) and the accounts to try, in order. */
export interface AuthorizationCall {
  request: AuthorizationRequest;
  /** The failover order routing chose; the attempt was written on the first. */
  accounts: readonly RoutedAccount[];
}

export interface Authorized {
  account: RoutedAccount;
  answer: Approval | Decline;
}

/**
 * After an unanswered authorization that may have arrived: what the processor did with it. An answer found
 * by inquiry stands (the shopper is charged once, on this account); `unseen`, or unknown and then
 * technically cancelled, means nothing of it can remain, so the next account may be asked. A failure here
 * leaves the outcome unknown: the caller must not fail over (the attempt stays pending for recovery).
 */
async function settleUnanswered(processor: Processor, reference: string): Promise<Approval | Decline | null> {
  const found = await processor.inquire(reference);
  if (found === 'unseen') return null;
  if (found === 'unknown') {
    await processor.technicalCancel(reference);
    return null;
  }
  return found;
}

/**
 * The call phase of an authorization, with failover: the first account routing chose is asked; when it
 * cannot have authorized (no connection; or no answer, then an inquiry or technical cancel proved nothing
 * stands) the next account is written on the attempt (committed, so recovery asks the right one) and asked
 * under the same reference. Never after a decline or an approval, and never while an earlier account's
 * outcome is unknown. When no account could be asked, the last ProcessorUnavailable is thrown and the
 * attempt stays pending for recovery.
 */
export async function authorizeWithFailover(
  em: EntityManager,
  processors: ProcessorDirectory,
  call: AuthorizationCall,
): Promise<Authorized> {
  const { request, accounts } = call;
  let unavailable: ProcessorUnavailable | undefined;
  for (const [index, account] of accounts.entries()) {
    if (index > 0) await moveAttemptTo(em, request.reference, account.id);
    const processor = processors.connect(account);
    try {
      return { account, answer: await processor.authorize(request) };
    } catch (error) {
      if (!(error instanceof ProcessorUnavailable)) throw error;
      unavailable = error;
      if (!error.reached) continue;
      const answer = await settleUnanswered(processor, request.reference);
      if (answer) return { account, answer };
    }
  }
  throw unavailable ?? new Error('no processor account to authorize on');
}
