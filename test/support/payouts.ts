import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { ensureXmllint } from './xsd.ts';

/** Vendor payouts as the tests read them (docs/marketplace.md, Payouts). */

const painSchema = path.join(import.meta.dirname, 'iso20022', 'pain.001.001.03.xsd');

/**
 * Throws with xmllint's findings when a payout file breaks ISO 20022's pain.001.001.03 schema (the
 * official XSD, freely redistributable, kept beside this file).
 */
export function expectPainValid(document: string): void {
  ensureXmllint();
  const result = spawnSync('xmllint', ['--noout', '--nonet', '--schema', painSchema, '-'], {
    input: document,
    encoding: 'utf8',
  });
  expect(`${result.stderr}`.trim(), document).toBe('- validates');
}

/** The pain.001 files the sandbox bank kept in a folder. */
export function payoutFiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => name.endsWith('.pain.001.xml'))
      .map((name) => readFileSync(path.join(dir, name), 'utf8'));
  } catch {
    return [];
  }
}

/** One transfer the sandbox bank was asked for (transfers.jsonl in its folder). */
export interface BankTransfer {
  reference: string;
  amountMinor: number;
  currency: string;
  payoutType: string;
  paid: boolean;
}

export function bankTransfers(dir: string): BankTransfer[] {
  try {
    return readFileSync(path.join(dir, 'transfers.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.endsWith('}')) // a line cut short by a crash was never a transfer received
      .map((line) => JSON.parse(line) as BankTransfer);
  } catch {
    return [];
  }
}
