import { userInfo } from 'node:os';
import { type AuditOrigin, operatorOrigin } from '@paywire/core';

/**
 * The operator running a CLI, as the audit trail names them: the operating system's user (a container's
 * user may have no name, only its uid).
 */
export function cliOperator(): AuditOrigin {
  let name: string;
  try {
    name = userInfo().username;
  } catch {
    name = `uid ${process.getuid?.() ?? 'unknown'}`;
  }
  return operatorOrigin(name);
}
