import { linkPartner, partnerLinks, unlinkPartner } from '@paywire/core';
import { manageCallers } from './callers.ts';
import { cliOperator } from './operator.ts';

/** The partner CLI's work (infra/partner.ts), apart so tests run it without a process: its output lines. */
export function managePartners(
  databaseUrl: string,
  command: 'link' | 'unlink' | 'list',
  partner: number | undefined,
  merchant: number | undefined,
): Promise<string[]> {
  return manageCallers(databaseUrl, async (em) => {
    if (command === 'list') {
      const links = await partnerLinks(em, partner ?? null);
      if (links.length === 0) return ['no partner links'];
      return links.map(
        (link) =>
          `partner ${link.partnerId} (${link.partner}) acts for merchant ${link.merchantId} (${link.merchant}) since ${link.createdAt.toISOString()}`,
      );
    }
    if (partner === undefined || merchant === undefined)
      throw new Error('--partner and --merchant are required');
    if (command === 'link')
      return [
        (await linkPartner(em, cliOperator(), partner, merchant))
          ? `partner ${partner} now acts for merchant ${merchant}`
          : `partner ${partner} already acts for merchant ${merchant}`,
      ];
    return [
      (await unlinkPartner(em, cliOperator(), partner, merchant))
        ? `partner ${partner} no longer acts for merchant ${merchant}`
        : `partner ${partner} did not act for merchant ${merchant}`,
    ];
  });
}
