import {
  type ConsolePermissions,
  type ConsoleUser,
  type CreateConsoleUser,
  consolePermissions,
  DomainError,
} from '@paywire/contracts';
import type { MerchantContext } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized } from '../db/wire.ts';
import { recordChange } from '../security/audit/trail.ts';
import { hashPassword } from '../security/passwords.ts';
import { actsFor } from './links.ts';
import { insertConsoleUser } from './queries.ts';

const usernameTaken = (username: string) =>
  new DomainError('VALIDATION_GENERAL_FAILURE', `username: ${username} is already taken`, {
    name: 'username',
    messageValue: username,
  });

/**
 * POST /cp/user[?onbehalfofmid=]: a console user of the calling merchant, or of the merchant a partner acts
 * for (an operator's link, links.ts; any other merchant is 404, as if it did not exist). The password is
 * hashed as merchants' are, at the password gate; the user signs in to that merchant's console with the
 * permissions given, and never to the API. Audited on the merchant's chain.
 */
export async function createConsoleUser(
  ctx: MerchantContext,
  input: CreateConsoleUser,
): Promise<ConsoleUser> {
  const merchantId = input.onBehalfOfMid ?? ctx.merchantId;
  if (!(await actsFor(ctx.em, ctx.merchantId, merchantId)))
    throw new DomainError('RESOURCE_NOT_FOUND', `merchant ${merchantId} was not found`, {
      name: 'onbehalfofmid',
      messageValue: String(merchantId),
    });
  const permissions = Object.fromEntries(
    consolePermissions.map((name) => [name, input[name]]),
  ) as ConsolePermissions;
  const passwordHash = await ctx.passwords.run(`console-user:${ctx.merchantId}`, () =>
    hashPassword(input.password, ctx.passwordCost),
  );
  const userId = await inTransaction(ctx.em, async (em) => {
    const [row] = await executeParameterized<{ id: string }>(em, insertConsoleUser, [
      merchantId,
      input.username,
      passwordHash,
      input.firstName,
      input.lastName,
      input.email,
      JSON.stringify(permissions),
      ctx.merchantId,
    ]);
    if (!row) throw usernameTaken(input.username);
    await recordChange({ ...ctx, merchantId }, em, 'console-user.create', `console-user:${row.id}`);
    return Number(row.id);
  });
  const { username, firstName, lastName, email } = input;
  return { userId, merchantId, username, firstName, lastName, email, ...permissions };
}
