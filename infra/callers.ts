import type { IssueCallerInput } from '@paywire/contracts';
import { issueCallerCredential, openDatabase, replaceCallerCredential } from '@paywire/core';
import { cliOperator } from './operator.ts';

export type EntityManager = Parameters<typeof issueCallerCredential>[0];

/** Credential management on a short-lived ORM: the same service code as core's `callers.*` procedures. */
export async function manageCallers<T>(
  databaseUrl: string,
  work: (em: EntityManager) => Promise<T>,
): Promise<T> {
  const orm = await openDatabase(databaseUrl, 2);
  try {
    return await work(orm.em.fork());
  } finally {
    await orm.close();
  }
}

/** A new credential; the secret is in the answer only. */
export function issueCaller(databaseUrl: string, input: IssueCallerInput): Promise<string> {
  return manageCallers(
    databaseUrl,
    async (em) => (await issueCallerCredential(em, input, cliOperator())).credential,
  );
}

/** The launcher's facade credential: a fresh one on every start, the previous start's revoked. */
export function replaceFacadeCredential(databaseUrl: string, name: string): Promise<string> {
  return manageCallers(
    databaseUrl,
    async (em) =>
      (await replaceCallerCredential(em, { name, scope: 'any-merchant' }, cliOperator())).credential,
  );
}
