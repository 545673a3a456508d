import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MikroORM } from '@mikro-orm/postgresql';
import { poolOf } from './db/orm.ts';
import { answersOf } from './db/wire.ts';

/** What readiness reads of the process: set by startCore as it starts and drains. */
export interface Lifecycle {
  /** Database migrated, pg-boss and the role's workers started. */
  started: boolean;
  draining(): boolean;
  orm: MikroORM;
}

export const isHealthPath = (url: string | undefined) => url === '/healthz' || url === '/readyz';

const databaseTimeoutMs = 2000;
/**
 * A statement of the pool's callers answered this recently, with no outage seen since, is proof enough: a
 * probe of its own would wait behind them for a connection, and a busy pool could fail its readiness (and
 * leave its Service) for being busy, not broken.
 */
const recentAnswerMs = 1000;

async function databaseReachable(orm: MikroORM): Promise<boolean> {
  if (answersOf(poolOf(orm)).answeredWithin(recentAnswerMs)) return true;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), databaseTimeoutMs);
  });
  const query = orm.em
    .getConnection()
    .execute('select 1')
    .then(
      () => true,
      () => false,
    );
  try {
    return await Promise.race([query, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Why the process is not ready, or undefined when it is. */
async function notReadyBecause(lifecycle: Lifecycle): Promise<string | undefined> {
  if (lifecycle.draining()) return 'draining';
  if (!lifecycle.started) return 'starting: migrations pending or jobs not started';
  if (!(await databaseReachable(lifecycle.orm))) return 'database unreachable';
  return undefined;
}

/**
 * GET /healthz: the process answers. GET /readyz: it can serve (database reachable: a statement answered in
 * the last second, or a probe's `select 1` within 2 s; migrations current, jobs started, not draining). Unauthenticated on purpose: they carry no data, only a status.
 */
export function answerHealth(request: IncomingMessage, response: ServerResponse, lifecycle: Lifecycle): void {
  const reply = (status: number, body: Record<string, string>): void => {
    response
      .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
      .end(request.method === 'HEAD' ? undefined : JSON.stringify(body));
  };
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('allow', 'GET, HEAD');
    reply(405, { status: 'method not allowed' });
  } else if (request.url === '/healthz') {
    reply(200, { status: 'ok' });
  } else
    void notReadyBecause(lifecycle).then((reason) =>
      reason ? reply(503, { status: 'not ready', reason }) : reply(200, { status: 'ready' }),
    );
}
