import type { EntityManager } from '@mikro-orm/postgresql';
import { inTransaction } from '../db/transaction.ts';
import { executeParameterized } from '../db/wire.ts';
import { type AuditOrigin, recordAudit } from '../security/audit/trail.ts';
import { deleteLink, insertLink, isLinked, listLinks } from './queries.ts';

/**
 * Partner links (docs/conformance.md, Partner users): partner P may act for merchant M (`onbehalfofmid=M`)
 * once an operator has linked them (`npm run partner`). The original links accounts in its own back office;
 * Paywire's operators do it. Each change is audited on the merchant's chain.
 */

export interface PartnerLink {
  partnerId: number;
  partner: string;
  merchantId: number;
  merchant: string;
  createdAt: Date;
}

async function change(
  em: EntityManager,
  origin: AuditOrigin,
  action: 'partner-link.add' | 'partner-link.remove',
  partnerId: number,
  merchantId: number,
): Promise<boolean> {
  return inTransaction(em, async (tx) => {
    const rows = await executeParameterized(tx, action === 'partner-link.add' ? insertLink : deleteLink, [
      partnerId,
      merchantId,
    ]);
    if (rows.length === 0) return false;
    await recordAudit(tx, origin, {
      merchantId,
      action,
      object: `partner:${partnerId}`,
      outcome: 'success',
    });
    return true;
  });
}

/** Lets `partnerId` act for `merchantId`; false when it could already. */
export const linkPartner = (em: EntityManager, origin: AuditOrigin, partnerId: number, merchantId: number) =>
  change(em, origin, 'partner-link.add', partnerId, merchantId);

/** Ends it; false when there was no such link. */
export const unlinkPartner = (
  em: EntityManager,
  origin: AuditOrigin,
  partnerId: number,
  merchantId: number,
) => change(em, origin, 'partner-link.remove', partnerId, merchantId);

export async function partnerLinks(em: EntityManager, partnerId: number | null): Promise<PartnerLink[]> {
  const rows = await executeParameterized<{
    partner_id: number;
    partner: string;
    merchant_id: number;
    merchant: string;
    created_at: Date;
  }>(em, listLinks, [partnerId]);
  return rows.map((row) => ({
    partnerId: row.partner_id,
    partner: row.partner,
    merchantId: row.merchant_id,
    merchant: row.merchant,
    createdAt: new Date(row.created_at),
  }));
}

/** Whether `partnerId` may act for `merchantId`: a merchant always acts for itself. */
export async function actsFor(em: EntityManager, partnerId: number, merchantId: number): Promise<boolean> {
  if (partnerId === merchantId) return true;
  return (await executeParameterized(em, isLinked, [partnerId, merchantId])).length > 0;
}
