import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '@paywire/contracts';
import type { RoutedAccount } from '../processors/accounts/routing.ts';
import type { ProcessorDirectory } from '../processors/directory.ts';
import {
  type Approval,
  type AuthorizationRequest,
  type Decline,
  type Processor,
  ProcessorRejected,
  ProcessorUnavailable,
  RequestNotSupported,
} from '../processors/processor.ts';
import { abandonAttempt, moveAttemptTo } from './attempts.ts';

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
 * After an authorization that may have arrived but got no answer: what the processor did with it. The same
 * request is repeated once under the same reference (the processor answers a repeat with its first answer,
 * or does it now, once); then an inquiry; an answer found stands (the shopper is charged once, on this
 * account). `unseen`, or unknown and then technically cancelled, means nothing of it can remain, so the next
 * account may be asked. Any failure here leaves the outcome unknown: it is thrown as such (`reached`), and
 * the attempt stays pending for recovery.
 */
async function settleUnanswered(
  processor: Processor,
  request: AuthorizationRequest,
): Promise<Approval | Decline | null> {
  try {
    return await processor.authorize(request);
  } catch (error) {
    if (!(error instanceof ProcessorUnavailable)) throw error;
  }
  try {
    const found = await processor.inquire(request.reference);
    if (found === 'unseen') return null;
    if (found !== 'unknown') return found;
    await processor.technicalCancel(request.reference);
    return null;
  } catch (error) {
    throw new ProcessorUnavailable('the processor did not answer, nor could it be asked what it did', true, {
      cause: error,
    });
  }
}

/**
 * The call phase of an authorization, with failover: the first account routing chose is asked; when it
 * cannot have authorized (no connection, or a refusal of the request itself; or no answer, then a repeat,
 * an inquiry or a technical cancel proved nothing stands) the next account is written on the attempt
 * (committed, so recovery asks the right one) and asked under the same reference. Never after a decline or
 * an approval, and never while an earlier account's outcome is unknown (settleUnanswered throws, and the
 * attempt stays pending for recovery). When no account took the payment and nothing stands, the attempt is
 * voided at once and ProcessorUnavailable is thrown with `reached` false.
 */
export async function authorizeWithFailover(
  em: EntityManager,
  processors: ProcessorDirectory,
  call: AuthorizationCall,
): Promise<Authorized> {
  const { request, accounts } = call;
  let failure: Error | undefined;
  let unsupported = 0;
  for (const [index, account] of accounts.entries()) {
    if (index > 0 && !(await moveAttemptTo(em, request.reference, account.id))) {
      throw new ProcessorUnavailable('the attempt was taken over by recovery during failover', true, {
        cause: failure,
      });
    }
    const processor = processors.connect(account);
    try {
      return { account, answer: await processor.authorize(request) };
    } catch (error) {
      // a refused request (bad credentials, a field the account does not take) authorized nothing
      if (!(error instanceof ProcessorUnavailable || error instanceof ProcessorRejected)) throw error;
      failure = error;
      if (error instanceof RequestNotSupported) unsupported++;
      if (error instanceof ProcessorRejected || !error.reached) continue;
      const answer = await settleUnanswered(processor, request);
      if (answer) return { account, answer };
    }
  }
  // Every account refused, or what it did was cancelled: nothing stands for the attempt.
  await abandonAttempt(em, request.reference);
  // No account could even express the request: the merchant's to change, not a retry's.
  if (unsupported > 0 && unsupported === accounts.length)
    throw new DomainError(
      'NO_PROCESSOR_ACCOUNT',
      `no processor account of the merchant takes this payment: ${failure?.message}`,
    );
  throw new ProcessorUnavailable(
    `no processor account answered: ${failure?.message ?? 'none to ask'}`,
    false,
    {
      cause: failure,
    },
  );
}
