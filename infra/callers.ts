import type { IssueCallerInput } from '@paywire/contracts';
import {
  bootstrapAdminCredential,
  issueCallerCredential,
  openDatabase,
  replaceCallerCredential,
} from '@paywire/core';
import { cliOperator } from './operator.ts';

export type EntityManager = Parameters<typeof issueCallerCredential>[0];

/**
 * Credential management on a short-lived ORM, for the in-process paths that precede any admin credential:
 * `npm start`'s facade credential, the first admin credential, tests' set-up. Operators otherwise go through
 * core's `callers.*` procedures (caller.ts).
 */
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

/** The first admin credential (core's `bootstrapAdminCredential`), audited as the operator at the CLI. */
export function bootstrapAdmin(
  databaseUrl: string,
  input: Parameters<typeof bootstrapAdminCredential>[1],
): ReturnType<typeof bootstrapAdminCredential> {
  return manageCallers(databaseUrl, (em) => bootstrapAdminCredential(em, input, cliOperator()));
}
