import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saleBody } from '../support/http.ts';
import { completeVendor } from '../support/marketplace.ts';
import { type CoreProcess, coreProcess } from '../support/node-process.ts';
import { bankTransfers, expectPainValid, payoutFiles } from '../support/payouts.ts';
import { freePort } from '../support/ports.ts';
import {
  newDatabase,
  newFacadeCredential,
  newMerchant,
  startFacade,
  type TestMerchant,
} from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

// ---------------------------------------------------------------------------------------------------------
// Vendor payouts across core crashes (docs/marketplace.md, Payouts): a core process killed (SIGKILL) while its
// payout run waits on the bank, twice, and restarted; the restarted run takes the leased payouts over after
// their lease and presents them again under the same end-to-end ids. Every vendor ends with one payout for
// the period, paid, of exactly its balance; the bank, which keys a transfer by its end-to-end id, was asked
// for each reference with one amount only, so nothing is paid twice.
// ---------------------------------------------------------------------------------------------------------

let core: CoreProcess | undefined;
let db: pg.Pool;
let fileDir: string;
let merchant: TestMerchant;
let call: <T = unknown>(
  method: string,
  route: string,
  body?: unknown,
) => Promise<{ status: number; body: T }>;
let closeFacade: () => Promise<void>;

beforeAll(async () => {
  const databaseUrl = await newDatabase('paywire_payout_crash');
  merchant = await newMerchant(databaseUrl);
  fileDir = mkdtempSync(path.join(tmpdir(), 'paywire-payout-crash-'));
  core = coreProcess({
    DATABASE_URL: databaseUrl,
    CORE_PORT: String(await freePort()),
    CARD_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    DATABASE_POOL_SIZE: '8',
    PAYOUT_FILE_DIR: fileDir,
    // The bank answers after 1.5 s, long enough for a kill to fall inside; a lease lasts 3 s.
    PAYOUT_SANDBOX_LATENCY_MS: '1500',
    PAYMENT_RECOVERY_AFTER_SECONDS: '3',
  });
  await core.start();
  const facade = await startFacade(core.trpcUrl, await newFacadeCredential(databaseUrl));
  closeFacade = facade.close;
  call = async (method, route, body) => {
    const response = await fetch(`${facade.baseUrl}${route}`, {
      method,
      headers: {
        authorization: merchant.authorization,
        'content-type': 'application/json',
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
}, 180_000); // a migrated database and a Node process, on a loaded machine

afterAll(async () => {
  await core?.kill();
  await closeFacade?.();
  await db?.end();
  if (fileDir) rmSync(fileDir, { recursive: true, force: true });
});

/** The payouts the run holds now (leased to a run waiting on the bank), and how often each was sent. */
async function leased(): Promise<{ id: string; attempts: number }[]> {
  const { rows } = await db.query(
    `select id::text, attempts from vendor_payout where merchant_id = $1 and sending_until > now() and status <> 'PAID'`,
    [merchant.id],
  );
  return rows;
}

describe('payouts across core crashes', () => {
  it('never pays a vendor twice when core dies mid-run', async () => {
    const account = (completeVendor().payoutInfo as Record<string, unknown>[])[0];
    const vendors: number[] = [];
    for (let n = 0; n < 8; n++) {
      const { delay: _, ...vendor } = completeVendor({
        email: `v${n}@example.com`,
        frequency: 'DAILY',
        payoutInfo: [{ ...account, minimalPayoutAmount: 0.01 }],
      });
      const reply = await call('POST', '/vendors', vendor);
      expect(reply.status).toBe(201);
    }
    const { rows: created } = await db.query('select id from vendor where merchant_id = $1 order by id', [
      merchant.id,
    ]);
    vendors.push(...created.map((row) => row.id as number));
    for (const [n, vendorId] of vendors.entries()) {
      const sale = await call('POST', '/transactions', {
        ...saleBody({ amount: 100 + n, currency: 'EUR' }),
        vendorInfo: { vendorId, commissionAmount: 10 + n },
      });
      expect(sale.status).toBe(200);
    }
    expect((await call('PUT', '/sandbox/clock', { advanceBy: 'P1D' })).status).toBe(200);

    // Killed while the first presentation waits on the bank, then while the one after its lease does: each
    // time once the bank has kept what it was sent (on a loaded machine the claim can come well before).
    for (const attempt of [1, 2]) {
      const kept = bankTransfers(fileDir).length;
      await waitFor(
        `payouts sent and kept by the bank (attempt ${attempt})`,
        async () =>
          (await leased()).some((row) => row.attempts === attempt) && bankTransfers(fileDir).length > kept,
        60_000,
      );
      await core?.kill();
      await core?.start();
    }
    const paid = await waitFor(
      'every payout paid',
      async () => {
        const { rows } = await db.query(
          `select vendor_id, status, amount_minor::int as amount, attempts from vendor_payout where merchant_id = $1`,
          [merchant.id],
        );
        return rows.length === vendors.length && rows.every((row) => row.status === 'PAID') && rows;
      },
      60_000,
    );
    // One payout per vendor, of its share, presented more than once.
    expect(paid.map((row) => [row.vendor_id, row.amount]).sort()).toEqual(
      vendors.map((vendorId, n) => [vendorId, (10 + n) * 100]).sort(),
    );
    expect(Math.max(...paid.map((row) => row.attempts))).toBeGreaterThanOrEqual(3);

    // The bank was asked again for the same references, each with one amount: it pays each once.
    const transfers = bankTransfers(fileDir);
    const amounts = new Map<string, Set<number>>();
    for (const transfer of transfers)
      amounts.set(
        transfer.reference,
        (amounts.get(transfer.reference) ?? new Set()).add(transfer.amountMinor),
      );
    expect(transfers.length).toBeGreaterThan(amounts.size);
    expect([...amounts.values()].every((set) => set.size === 1)).toBe(true);
    expect(amounts.size).toBe(vendors.length);
    for (const file of payoutFiles(fileDir)) expectPainValid(file);
  }, 240_000);
});
