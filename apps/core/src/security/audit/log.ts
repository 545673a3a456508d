import type { EntityManager } from '@mikro-orm/postgresql';
import type {
  AuditAction,
  AuditActorKind,
  AuditEvent,
  AuditEventPage,
  AuditEventQuery,
  AuditOutcome,
} from '@paywire/contracts';
import type { MerchantContext } from '../../context.ts';
import { executeParameterized, executePrepared } from '../../db/wire.ts';
import { auditEventPage, chainBreaks, chainHeads } from './queries.ts';

interface EventRow {
  seq: string;
  action: AuditAction;
  object: string | null;
  outcome: AuditOutcome;
  actor_kind: AuditActorKind;
  actor: string;
  client_address: string | null;
  request_id: string | null;
  occurred_at: Date | string;
  hash: string;
}

const eventOf = (row: EventRow): AuditEvent => ({
  seq: Number(row.seq),
  action: row.action,
  object: row.object,
  outcome: row.outcome,
  actorKind: row.actor_kind,
  actor: row.actor,
  clientAddress: row.client_address,
  requestId: row.request_id,
  // the driver may leave a timestamp as text (MikroORM's pool)
  occurredAt: new Date(row.occurred_at).toISOString(),
  hash: row.hash,
});

/** The merchant's own events, newest first, a page at a time (one more row tells the last page). */
export async function listAuditEvents(ctx: MerchantContext, query: AuditEventQuery): Promise<AuditEventPage> {
  const rows = await executePrepared<EventRow>(ctx.em, auditEventPage, [
    ctx.merchantId,
    query.after ?? null,
    query.pagesize + 1,
  ]);
  return { lastPage: rows.length <= query.pagesize, auditEvents: rows.slice(0, query.pagesize).map(eventOf) };
}

export interface ChainBreak {
  /** The merchant's id; 0 for the chain of events of no merchant. */
  chain: number;
  seq: number;
  problem: string;
}

export interface AuditVerdict {
  breaks: ChainBreak[];
  /** Each chain's last seq and hash: kept outside the database, they also reveal a rewritten chain. */
  heads: { chain: number; seq: number; hash: string }[];
}

/** Checks every chain from its first row to its head (`npm run audit -- verify`). */
export async function verifyAuditTrail(em: EntityManager): Promise<AuditVerdict> {
  const breaks = await executeParameterized<{ chain: number; seq: string; problem: string }>(
    em,
    chainBreaks,
    [],
  );
  const heads = await executeParameterized<{ chain: number; seq: string; hash: string }>(em, chainHeads, []);
  return {
    breaks: breaks.map((row) => ({ chain: row.chain, seq: Number(row.seq), problem: row.problem })),
    heads: heads.map((row) => ({ chain: row.chain, seq: Number(row.seq), hash: row.hash })),
  };
}
