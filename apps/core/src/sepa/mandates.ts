import type { EntityManager } from '@mikro-orm/postgresql';
import type { SepaDirectDebitInfo } from '@paywire/contracts';
import { executeParameterized } from '../db/wire.ts';
import { mandatesOfShopper } from './queries.ts';
import { shortDate } from './texts.ts';

/** The vaulted shopper's mandates, as its paymentSources.sepaDirectDebitInfo shows them. */
export async function sepaDirectDebitInfo(
  em: EntityManager,
  shopper: { id: number; merchantId: number },
): Promise<SepaDirectDebitInfo[]> {
  const rows = await executeParameterized<{
    reference: string;
    iban_first_four: string;
    iban_last_four: string;
    accepted_at: Date;
  }>(em, mandatesOfShopper, [shopper.id, shopper.merchantId]);
  return rows.map((row) => ({
    sepaDirectDebit: {
      ibanFirstFour: row.iban_first_four,
      ibanLastFour: row.iban_last_four,
      mandateId: row.reference,
      mandateDate: shortDate(new Date(row.accepted_at)),
    },
  }));
}
