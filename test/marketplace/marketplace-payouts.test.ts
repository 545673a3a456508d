import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { refusedIban, sandboxPayoutBank } from '@paywire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, client, expectStatus, saleBody, xmlDocument } from '../support/http.ts';
import { hookConfig, type IpnReceiver, startIpnReceiver } from '../support/ipn-receiver.ts';
import { completeVendor, IBAN } from '../support/marketplace.ts';
import { expectPainValid, payoutFiles } from '../support/payouts.ts';
import { fetchReport } from '../support/reports.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

// ---------------------------------------------------------------------------------------------------------
// Vendor payouts (docs/marketplace.md, Payouts) over real HTTP: vendors paid their shares less their refunds
// when their period ends by the merchant's sandbox clock, the run's pain.001 file valid against ISO 20022's
// XSD, the Payout (to the vendor's ipnUrl too) and FailedPayoutTransfer IPNs, a refused transfer retried at
// the next payout day, a balance under the minimum carried over, and the payouts read back through the
// PayoutDetail report.
// ---------------------------------------------------------------------------------------------------------

const day = 'P1D';
let stack: Stack;
let api: ReturnType<typeof client>;
let receiver: IpnReceiver;
let fileDir: string;

beforeAll(async () => {
  fileDir = mkdtempSync(path.join(tmpdir(), 'paywire-payouts-'));
  stack = await startStack({ payoutBank: sandboxPayoutBank({ fileDir }) });
  api = client(stack);
  receiver = await startIpnReceiver();
});

afterAll(async () => {
  await receiver?.close();
  await stack?.close();
  rmSync(fileDir, { recursive: true, force: true });
});

/** A new merchant (its own clock) whose Payout and FailedPayoutTransfer IPNs reach a hook of its own. */
async function marketplace(): Promise<{ merchant: TestMerchant; hook: string }> {
  const merchant = await stack.newMerchant();
  const hook = receiver.newHook();
  const config = hookConfig(hook, ['sendPayout', 'sendFailedPayoutTransfer']);
  expectStatus(await api.post('/notification-config', config, as(merchant)), 200);
  return { merchant, hook };
}

function vendorIdOf(reply: { headers: Headers }): number {
  const location = reply.headers.get('location') ?? '';
  return Number(location.slice(location.lastIndexOf('/') + 1));
}

/** The reference's full vendor, paid daily without delay (the delay's default). */
function dailyVendor(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const { delay: _, ...vendor } = completeVendor({ frequency: 'DAILY', ...overrides });
  return vendor;
}

async function newVendor(merchant: TestMerchant, overrides: Record<string, unknown> = {}): Promise<number> {
  const reply = await api.post('/vendors', dailyVendor(overrides), as(merchant));
  expect(reply.status, reply.text).toBe(201);
  return vendorIdOf(reply);
}

async function sale(merchant: TestMerchant, amount: number, vendorsInfo: Record<string, unknown>) {
  const reply = await api.post(
    '/transactions',
    saleBody({ amount, currency: 'EUR', ...vendorsInfo }),
    as(merchant),
  );
  return String(expectStatus(reply, 200).body.transactionId);
}

async function advance(merchant: TestMerchant, advanceBy: string): Promise<void> {
  expectStatus(await api.put('/sandbox/clock', { advanceBy }, as(merchant)), 200);
}

/** A merchant's `count` payouts as the PayoutDetail report shows them, once none is being paid. */
async function settledPayouts(merchant: TestMerchant, count: number) {
  return waitFor(`${count} payouts answered`, async () => {
    const { rows } = await fetchReport(api, merchant, 'PayoutDetail', { period: 'LAST_12_MONTHS' });
    return rows.length === count && rows.every((row) => row['Payout Status'] !== 'PENDING') && rows;
  });
}

/** Waits until a run has looked at the merchant's `vendors` vendors today, by its clock. */
function lookedAtToday(merchant: TestMerchant, vendors: number) {
  return waitFor('a payout run today', async () => {
    const { rows } = await stack.db.query(
      `select 1 from vendor v join merchant m on m.id = v.merchant_id
        where m.id = $1 and v.next_payout_on > ((now() + make_interval(secs => m.clock_offset_seconds)) at time zone 'UTC')::date`,
      [merchant.id],
    );
    return rows.length === vendors;
  });
}

const ipnsOf = (hook: string, type: string) =>
  receiver
    .at(hook)
    .filter((ipn) => ipn.params.get('transactionType') === type)
    .map((ipn) => Object.fromEntries(ipn.params));

describe('payouts by the merchant clock', () => {
  it('pays each vendor its shares less its refunds once its period ends, in a valid pain.001 file', async () => {
    const { merchant, hook } = await marketplace();
    const account = (completeVendor().payoutInfo as Record<string, unknown>[])[0];
    // 30%, minimum 20.00; told of its payouts at its own ipnUrl too
    const vendorHook = receiver.newHook();
    const cakes = await newVendor(merchant, {
      ipnUrl: vendorHook,
      payoutInfo: [{ ...account, nameOnAccount: 'Cakes & Sons' }],
    });
    // The second vendor created in XML: payouts do not care how a vendor came.
    const xmlVendor = dailyVendor({ email: 'teas@example.com', name: 'Teas Ltd' });
    const created = await api.post(
      '/vendors',
      xmlDocument('vendor', { ...xmlVendor, payoutInfo: (xmlVendor.payoutInfo as unknown[])[0] }),
      { ...as(merchant), format: 'xml' },
    );
    expect(created.status, created.text).toBe(201);
    const teas = vendorIdOf(created);

    const transactionId = await sale(merchant, 100, {
      vendorsInfo: { vendorInfo: [{ vendorId: cakes }, { vendorId: teas, commissionAmount: 25 }] },
    });
    const refund = await api.post(
      `/transactions/refund/${transactionId}`,
      {
        amount: 40,
        vendorsRefundInfo: {
          vendorRefundInfo: [
            { vendorId: cakes, vendorAmount: 5 },
            { vendorId: teas, vendorAmount: 2.5 },
          ],
        },
      },
      as(merchant),
    );
    expect(refund.status, refund.text).toBe(200);

    // Nothing before the day ends; each vendor's balance is its share less its refunded part.
    expect((await fetchReport(api, merchant, 'PayoutDetail', { period: 'LAST_12_MONTHS' })).rows).toEqual([]);
    const balances = async () =>
      (await fetchReport(api, merchant, 'VendorBalance', {})).rows
        .map((row) => [Number(row['Vendor ID']), row['Balance Currency'], row.Balance])
        .sort();
    expect(await balances()).toEqual(
      [
        [cakes, 'EUR', '25.00'],
        [teas, 'EUR', '22.50'],
      ].sort(),
    );
    await advance(merchant, day);
    const payouts = await settledPayouts(merchant, 2);
    // Paid: nothing owed any more.
    expect(await balances()).toEqual(
      [
        [cakes, 'EUR', '0.00'],
        [teas, 'EUR', '0.00'],
      ].sort(),
    );
    expect(
      payouts
        .map((row) => [
          Number(row['Vendor ID']),
          row['Payout Status'],
          row['Payout Amount'],
          row['Payout Currency'],
        ])
        .sort(),
    ).toEqual(
      [
        [cakes, 'PAID', '25.00', 'EUR'],
        [teas, 'PAID', '22.50', 'EUR'],
      ].sort(),
    );

    const paid = await waitFor('both Payout IPNs', () => {
      const ipns = ipnsOf(hook, 'PAYOUT');
      return ipns.length === 2 && ipns;
    });
    expect(paid.find((ipn) => ipn.vendorId === String(cakes))).toMatchObject({
      referenceNumber: String(cakes),
      vendorName: 'Cakes Ltd',
      amount1: '25.00',
      currency1: 'EUR',
      payoutType: 'SEPA',
      testMode: 'Y',
    });
    expect(paid.find((ipn) => ipn.vendorId === String(teas))).toMatchObject({
      amount1: '22.50',
      currency1: 'EUR',
    });
    // The vendor with an ipnUrl gets its own Payout IPN, the merchant's copy to the letter (signed alike).
    const told = await waitFor("the vendor's Payout IPN", () => {
      const ipns = ipnsOf(vendorHook, 'PAYOUT');
      return ipns.length > 0 && ipns;
    });
    expect(told).toEqual(paid.filter((ipn) => ipn.vendorId === String(cakes)));

    // The run's file: both transfers, by payout id, to the vendors' IBANs; valid; the IBAN in no log line.
    const ids = payouts.map((row) => row['Payout ID']);
    const [file] = payoutFiles(fileDir).filter((content) =>
      ids.every((id) => content.includes(`<EndToEndId>${id}<`)),
    );
    expect(file).toBeDefined();
    expectPainValid(file as string);
    expect(file).toContain(`<IBAN>${IBAN}</IBAN>`);
    expect(file).toContain('<Nm>Cakes &amp; Sons</Nm>');
    expect(stack.logs.filter((line) => line.includes(IBAN))).toEqual([]);

    // Another day: nothing new to pay, nothing paid twice.
    await advance(merchant, day);
    await lookedAtToday(merchant, 2);
    expect(await settledPayouts(merchant, 2)).toHaveLength(2);
    expect(ipnsOf(hook, 'PAYOUT')).toHaveLength(2);
    expect(ipnsOf(vendorHook, 'PAYOUT')).toHaveLength(1);
  });

  it('retries a refused transfer on the vendor’s next payout day', async () => {
    const { merchant, hook } = await marketplace();
    const refused = completeVendor().payoutInfo as Record<string, unknown>[];
    const vendor = await newVendor(merchant, { payoutInfo: [{ ...refused[0], iban: refusedIban }] });
    await sale(merchant, 50, { vendorInfo: { vendorId: vendor } }); // 30%: 15.00, minimum 20.00
    await sale(merchant, 50, { vendorInfo: { vendorId: vendor } });
    await advance(merchant, day);

    const [failed] = await waitFor('the FailedPayoutTransfer IPN', () => {
      const ipns = ipnsOf(hook, 'FAILED_PAYOUT_TRANSFER');
      return ipns.length === 1 && ipns;
    });
    expect(failed).toMatchObject({ vendorId: String(vendor), amount: '30.00', currency: 'EUR' });
    const [retrying] = await settledPayouts(merchant, 1);
    expect(retrying).toMatchObject({ 'Payout Status': 'RETRY', Attempts: '1', 'Payout Amount': '30.00' });
    expect(failed?.payoutId).toBe(retrying?.['Payout ID']);

    // The merchant fixes the account; the next payout day pays the same payout, once.
    expectStatus(
      await api.put(`/vendors/${vendor}`, { payoutInfo: [{ ...refused[0], iban: IBAN }] }, as(merchant)),
      204,
    );
    await advance(merchant, day);
    await waitFor('the Payout IPN', () => ipnsOf(hook, 'PAYOUT').length === 1);
    const [paid] = await settledPayouts(merchant, 1);
    expect(paid).toMatchObject({
      'Payout ID': retrying?.['Payout ID'],
      'Payout Status': 'PAID',
      Attempts: '2',
      'Failure Reason': '',
    });
  });

  it('carries a balance under the minimal payout amount to the next period', async () => {
    const { merchant, hook } = await marketplace();
    const vendor = await newVendor(merchant, {
      payoutInfo: [
        { ...(completeVendor().payoutInfo as Record<string, unknown>[])[0], minimalPayoutAmount: 50 },
      ],
    });
    await sale(merchant, 100, { vendorInfo: { vendorId: vendor } }); // 30.00
    await advance(merchant, day);
    await lookedAtToday(merchant, 1);
    await sale(merchant, 100, { vendorInfo: { vendorId: vendor } });
    await advance(merchant, day);
    await waitFor('the Payout IPN', () => ipnsOf(hook, 'PAYOUT').length === 1);
    expect(ipnsOf(hook, 'PAYOUT')[0]).toMatchObject({ amount1: '60.00', currency1: 'EUR' });
    const rows = await settledPayouts(merchant, 1);
    expect(rows.map((row) => row['Payout Amount'])).toEqual(['60.00']);
    const csv = await fetchReport(api, merchant, 'PayoutDetail', { period: 'LAST_12_MONTHS' }, 'csv');
    expect(csv.rows.map((row) => row['Payout Amount'])).toEqual(['60.00']);
  });
});
