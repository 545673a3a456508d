import { appendFile, mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PayoutDebtor } from './pain001.ts';

/** One payout as the bank is asked to pay it; `reference` is its end-to-end id (the payout's id). */
export interface PayoutTransfer {
  reference: string;
  amountMinor: number;
  currency: string;
  payoutType: string;
}

/** The bank's answer for a transfer: paid, or refused with its reason. */
export type TransferOutcome = { paid: true } | { paid: false; reason: string };

/**
 * The bank that pays vendors, behind one interface so a real one can plug in. Asked only from the payout
 * run's call phase, outside any transaction, with the run's pain.001 file (its SEPA transfers; null when it
 * has none) and every transfer. Asked again for a reference it has seen (core died before recording the
 * answer), it must answer the same and pay once, as a bank keys a transfer by its end-to-end id.
 */
export interface PayoutBank {
  transfer(
    file: { name: string; content: string } | null,
    transfers: PayoutTransfer[],
  ): Promise<Map<string, TransferOutcome>>;
}

/** docs/marketplace.md, Payouts: the sandbox bank refuses transfers to this IBAN (as SEPA debits fail from it). */
export const refusedIban = 'DE62370400440532013001';

/**
 * The sandbox bank: pays every transfer but those to the refused IBAN, which it reads from the file, as a
 * bank does. With a folder (PAYOUT_FILE_DIR) it keeps each file there, readable by its owner only, and a
 * line per transfer it paid or refused in `transfers.jsonl` beside them (what the tests read); with a
 * latency it answers that much later.
 */
export function sandboxPayoutBank(options: { fileDir?: string; latencyMs?: number } = {}): PayoutBank {
  return {
    async transfer(file, transfers) {
      const refused = new Set<string>();
      for (const match of file?.content.matchAll(
        /<EndToEndId>([^<]*)<\/EndToEndId>.*?<IBAN>([^<]*)<\/IBAN>/g,
      ) ?? []) {
        if (match[2] === refusedIban) refused.add(match[1] as string);
      }
      const answers = new Map<string, TransferOutcome>(
        transfers.map((t) => [
          t.reference,
          refused.has(t.reference) ? { paid: false, reason: 'account refused the transfer' } : { paid: true },
        ]),
      );
      // Kept as received, before answering: an answer lost on the way (core died) leaves the bank's book.
      if (options.fileDir) {
        await mkdir(options.fileDir, { recursive: true, mode: 0o700 });
        if (file) {
          // Whole or not at all: a file cut short by a crash is never taken for one received.
          const kept = path.join(options.fileDir, file.name);
          await writeFile(`${kept}.part`, file.content, { mode: 0o600 });
          await rename(`${kept}.part`, kept);
        }
        await appendFile(
          path.join(options.fileDir, 'transfers.jsonl'),
          transfers
            .map((t) => `${JSON.stringify({ ...t, paid: answers.get(t.reference)?.paid ?? false })}\n`)
            .join(''),
          { mode: 0o600 },
        );
      }
      if (options.latencyMs) await new Promise((resolve) => setTimeout(resolve, options.latencyMs));
      return answers;
    },
  };
}

/** The account payouts come from when none is configured (PAYOUT_DEBTOR_*): a sandbox one. */
export const sandboxPayoutDebtor: PayoutDebtor = { name: 'Paywire Sandbox', iban: 'DE02120300000000202051' };

export interface PayoutSettings {
  bank: PayoutBank;
  debtor: PayoutDebtor;
}

declare module '../context.ts' {
  interface CoreServices {
    /** Who pays vendors, from which account (marketplace/payouts.ts). */
    payouts: PayoutSettings;
  }
}
