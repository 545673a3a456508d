import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, type CallOptions, client, expectStatus, failure, type Reply } from '../support/http.ts';
import { hookConfig, type IpnReceiver, startIpnReceiver } from '../support/ipn-receiver.ts';
import { completeVendor, IBAN } from '../support/marketplace.ts';
import { type Stack, startStack } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

// ---------------------------------------------------------------------------------------------------------
// Marketplace vendors (docs/marketplace.md): create, retrieve, update and list, JSON and XML, over real HTTP
// against real PostgreSQL; the bank account sealed and shown by its last four; onboarding and its IPNs.
// ---------------------------------------------------------------------------------------------------------

const NAMESPACE = 'http://ws.plimus.com';
const vendorShape = { root: 'vendor', repeated: ['payoutInfo', 'missingItems'] };
const vendorsShape = { root: 'vendors', repeated: ['vendor', 'payoutInfo', 'missingItems'] };
const asXml: CallOptions = { format: 'xml', shape: vendorShape, accept: 'application/xml' };

let stack: Stack;
let api: ReturnType<typeof client>;
let receiver: IpnReceiver;

beforeAll(async () => {
  [stack, receiver] = await Promise.all([startStack(), startIpnReceiver()]);
  api = client(stack);
});

afterAll(async () => {
  await Promise.all([stack?.close(), receiver?.close()]);
});

/** The vendor id from a 201's Location, checking the answer has no body. */
function created(reply: Reply): number {
  expect(reply.status, reply.text).toBe(201);
  expect(reply.text).toBe('');
  const location = reply.headers.get('location') ?? '';
  expect(location).toMatch(new RegExp(`^${stack.baseUrl}/vendors/\\d+$`));
  return Number(location.slice(location.lastIndexOf('/') + 1));
}

async function configureIpn(events: string[], merchant = stack.merchant): Promise<string> {
  const hook = receiver.newHook();
  expectStatus(
    await api.post(
      '/notification-config',
      hookConfig(
        hook,
        events.map((event) => `send${event}`),
      ),
      { merchant },
    ),
    200,
  );
  return hook;
}

describe('create and retrieve', () => {
  it('JSON: 201 with Location; GET shows the vendor, its secrets by their last four, Approved and Active', async () => {
    const vendorId = created(await api.post('/vendors', completeVendor()));
    const read = expectStatus(await api.get(`/vendors/${vendorId}`), 200);
    expect(read.body).toEqual({
      vendorId,
      email: 'vendor@example.com',
      name: 'Cakes Ltd',
      firstName: 'Joe',
      lastName: 'Baker',
      address: 'Hauptstrasse 1',
      city: 'Berlin',
      zip: '10115',
      country: 'DE',
      phone: '+49 30 1234567',
      defaultPayoutCurrency: 'EUR',
      frequency: 'MONTHLY',
      delay: 5,
      vendorPrincipal: {
        firstName: 'Joe',
        lastName: 'Baker',
        address: 'Hauptstrasse 1',
        city: 'Berlin',
        zip: '10115',
        country: 'DE',
        dob: '28-09-1980',
        personalIdentificationNumber: '****4321',
        email: 'joe@example.com',
      },
      payoutInfo: [
        {
          payoutType: 'SEPA',
          baseCurrency: 'EUR',
          minimalPayoutAmount: 20,
          nameOnAccount: 'Cakes Ltd',
          bankAccountClass: 'CORPORATE',
          swiftBic: 'COBADEFFXXX',
          bankName: 'Commerzbank',
          country: 'DE',
          iban: '****3000',
        },
      ],
      vendorAgreement: { commissionPercent: 30, accountStatus: 'ACTIVE' },
      verification: { payoutStatus: 'Approved', processingStatus: 'Active' },
    });
    // The IBAN and identity number are sealed: no column holds them in plain text.
    const { rows } = await stack.db.query('select * from vendor where id = $1', [vendorId]);
    const stored = JSON.stringify(rows[0]);
    expect(stored).not.toContain(IBAN);
    expect(stored).not.toContain('987654321');
    expect(rows[0].sealed_secrets).toMatch(/^v2:\d+:/);
    expect(stack.logs.join('\n')).not.toContain(IBAN);
  });

  it('XML: a vendor document in, the schema order out (vendor.xsd), repeated payout-info', async () => {
    const request =
      `<?xml version="1.0" encoding="UTF-8"?><vendor xmlns="${NAMESPACE}"><email>x@example.com</email>` +
      '<country>FR</country><vendor-principal><first-name>Ann</first-name><last-name>Lee</last-name>' +
      '<dob>01-02-1990</dob><address>1 rue X</address><city>Paris</city><zip>75001</zip><country>FR</country>' +
      '</vendor-principal><payout-info><payout-type>SEPA</payout-type><name-on-account>Ann Lee</name-on-account>' +
      '<iban>FR1420041010050500013M02606</iban></payout-info>' +
      '<vendor-agreement><commission-percent>12.5</commission-percent></vendor-agreement></vendor>';
    const vendorId = created(await api.post('/vendors', request, asXml));
    const read = expectStatus(await api.get(`/vendors/${vendorId}`, asXml), 200);
    expect(read.headers.get('content-type')).toContain('application/xml');
    expect(read.text).toBe(
      `<?xml version="1.0" encoding="UTF-8"?>\n<vendor xmlns="${NAMESPACE}"><vendor-id>${vendorId}</vendor-id>` +
        '<email>x@example.com</email><country>FR</country><frequency>MONTHLY</frequency><delay>0</delay>' +
        '<vendor-principal><first-name>Ann</first-name><last-name>Lee</last-name><address>1 rue X</address>' +
        '<city>Paris</city><zip>75001</zip><country>FR</country><dob>01-02-1990</dob></vendor-principal>' +
        '<payout-info><payout-type>SEPA</payout-type><name-on-account>Ann Lee</name-on-account>' +
        '<iban>****2606</iban></payout-info>' +
        '<vendor-agreement><commission-percent>12.5</commission-percent><account-status>ACTIVE</account-status>' +
        '</vendor-agreement><verification><payout-status>Approved</payout-status>' +
        '<processing-status>Active</processing-status></verification></vendor>',
    );
  });

  it('a vendor with only email and country may sell but is Incomplete, its missing items listed', async () => {
    const vendorId = created(await api.post('/vendors', { email: 'min@example.com', country: 'US' }));
    const read = expectStatus(await api.get(`/vendors/${vendorId}`), 200);
    expect(read.body.verification).toEqual({
      payoutStatus: 'Incomplete',
      processingStatus: 'Active',
      missingItems: [
        'vendorPrincipal.firstName',
        'vendorPrincipal.lastName',
        'vendorPrincipal.dob',
        'vendorPrincipal.address',
        'vendorPrincipal.city',
        'vendorPrincipal.zip',
        'vendorPrincipal.country',
        'payoutInfo',
      ],
    });
    const xml = expectStatus(await api.get(`/vendors/${vendorId}`, asXml), 200);
    expect(xml.body.verification.missingItems).toHaveLength(8);
  });
});

describe('update and onboarding', () => {
  it('PUT 204: completing a vendor sends UnderVendorReview then VendorStatusChanged (Approved); deactivating one more', async () => {
    const hook = await configureIpn(['UnderVendorReview', 'VendorStatusChanged']);
    const vendorId = created(await api.post('/vendors', { email: 'late@example.com', country: 'DE' }));
    const { vendorPrincipal, payoutInfo } = completeVendor();
    const put = await api.put(`/vendors/${vendorId}`, { vendorPrincipal, payoutInfo });
    expect(put.status, put.text).toBe(204);
    expect(put.text).toBe('');
    const read = expectStatus(await api.get(`/vendors/${vendorId}`), 200);
    expect(read.body.email).toBe('late@example.com'); // fields not sent are kept
    expect(read.body.verification).toEqual({ payoutStatus: 'Approved', processingStatus: 'Active' });

    expectStatus(
      await api.put(`/vendors/${vendorId}`, { vendorAgreement: { accountStatus: 'INACTIVE' } }),
      204,
    );
    const deliveries = await waitFor('three vendor IPNs', () => {
      const got = receiver.at(hook);
      return got.length >= 3 ? got : undefined;
    });
    expect(deliveries.map((ipn) => ipn.params.get('transactionType'))).toEqual([
      'UNDER_VENDOR_REVIEW',
      'VENDOR_STATUS_CHANGED',
      'VENDOR_STATUS_CHANGED',
    ]);
    expect(deliveries.map((ipn) => ipn.params.get('vendorId'))).toEqual([
      String(vendorId),
      String(vendorId),
      String(vendorId),
    ]);
    expect(deliveries.map((ipn) => ipn.params.get('payoutStatus'))).toEqual([
      'Pending',
      'Approved',
      'Approved',
    ]);
    expect(deliveries[2]?.params.get('processingStatus')).toBe('Inactive');
    expect(deliveries.map((ipn) => ipn.body).join('&')).not.toContain(IBAN);
  });

  it('a new payout method replaces the old and its sealed account; the principal merges', async () => {
    const vendorId = created(await api.post('/vendors', completeVendor()));
    expectStatus(
      await api.put(`/vendors/${vendorId}`, {
        vendorPrincipal: { city: 'Hamburg' },
        payoutInfo: {
          payoutType: 'WIRE',
          nameOnAccount: 'Cakes Ltd',
          bankAccountId: '000123456789',
          bankId: '021000021',
          country: 'US',
        },
      }),
      204,
    );
    const read = expectStatus(await api.get(`/vendors/${vendorId}`), 200);
    expect(read.body.vendorPrincipal).toMatchObject({ firstName: 'Joe', city: 'Hamburg' });
    expect(read.body.payoutInfo).toEqual([
      {
        payoutType: 'WIRE',
        nameOnAccount: 'Cakes Ltd',
        bankAccountId: '****6789',
        bankId: '021000021',
        country: 'US',
      },
    ]);
  });

  it('XML PUT answers 204 too', async () => {
    const vendorId = created(await api.post('/vendors', { email: 'x@example.com', country: 'NL' }));
    const put = await api.put(
      `/vendors/${vendorId}`,
      `<vendor xmlns="${NAMESPACE}"><name>Renamed</name></vendor>`,
      asXml,
    );
    expect(put.status, put.text).toBe(204);
    expect((await api.get(`/vendors/${vendorId}`)).body.name).toBe('Renamed');
  });
});

describe('list', () => {
  it('pages newest first with pagesize, after, before and gettotal, JSON and XML', async () => {
    const merchant = await stack.newMerchant();
    const ids: number[] = [];
    for (const n of [1, 2, 3, 4, 5]) {
      ids.push(
        created(await api.post('/vendors', { email: `v${n}@example.com`, country: 'DE' }, { merchant })),
      );
    }
    const first = expectStatus(await api.get('/vendors?pagesize=2&gettotal=true', as(merchant)), 200);
    expect(first.body.totalResults).toBe(5);
    expect(first.body.lastPage).toBe(false);
    expect(first.body.vendor.map((v: { vendorId: number }) => v.vendorId)).toEqual([ids[4], ids[3]]);
    const next = expectStatus(await api.get(`/vendors?pagesize=2&after=${ids[3]}`, as(merchant)), 200);
    expect(next.body.vendor.map((v: { vendorId: number }) => v.vendorId)).toEqual([ids[2], ids[1]]);
    expect(next.body).not.toHaveProperty('totalResults');
    const last = expectStatus(await api.get(`/vendors?pagesize=2&after=${ids[1]}`, as(merchant)), 200);
    expect(last.body.lastPage).toBe(true);
    const back = expectStatus(await api.get(`/vendors?pagesize=2&before=${ids[0]}`, as(merchant)), 200);
    expect(back.body.vendor.map((v: { vendorId: number }) => v.vendorId)).toEqual([ids[2], ids[1]]);
    const xml = expectStatus(
      await api.get('/vendors?pagesize=10&gettotal=true', as(merchant, { ...asXml, shape: vendorsShape })),
      200,
    );
    expect(xml.text).toMatch(
      /^<\?xml[^>]*>\n<vendors xmlns="http:\/\/ws\.plimus\.com"><total-results>5<\/total-results><last-page>true<\/last-page><vendor><vendor-id>/,
    );
    expect(xml.body.vendor).toHaveLength(5);
    // the default page is 10, the reference's
    expect(expectStatus(await api.get('/vendors', as(merchant)), 200).body.vendor).toHaveLength(5);
  });

  it('another merchant sees none of them, and cannot read or change one (404)', async () => {
    const vendorId = created(await api.post('/vendors', completeVendor()));
    const other = await stack.newMerchant();
    expect(expectStatus(await api.get('/vendors?gettotal=true', as(other)), 200).body).toEqual({
      totalResults: 0,
      lastPage: true,
      vendor: [],
    });
    expect(failure(await api.get(`/vendors/${vendorId}`, as(other)))).toEqual({
      status: 404,
      errorName: 'VENDOR_NOT_FOUND',
      code: 20054,
      property: 'vendorId',
    });
    expect(failure(await api.put(`/vendors/${vendorId}`, { name: 'x' }, as(other))).status).toBe(404);
  });
});

describe('bad input, in the interface error shape, nothing written', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['no email', { country: 'DE' }, 'email'],
    ['no country', { email: 'a@example.com' }, 'country'],
    ['a bad country', { email: 'a@example.com', country: 'Germany' }, 'country'],
    [
      'a commission over 100',
      { email: 'a@example.com', country: 'DE', vendorAgreement: { commissionPercent: 101 } },
      'vendorAgreement.commissionPercent',
    ],
    [
      'an unknown payout type',
      { email: 'a@example.com', country: 'DE', payoutInfo: [{ payoutType: 'CHEQUE' }] },
      'payoutInfo.0.payoutType',
    ],
    [
      'an IBAN failing mod-97',
      {
        email: 'a@example.com',
        country: 'DE',
        payoutInfo: [{ payoutType: 'SEPA', iban: 'DE89370400440532013001' }],
      },
      'payoutInfo.0.iban',
    ],
    [
      'two payout methods',
      { email: 'a@example.com', country: 'DE', payoutInfo: [{ payoutType: 'SEPA' }, { payoutType: 'ACH' }] },
      'payoutInfo',
    ],
    ['an unknown frequency', { email: 'a@example.com', country: 'DE', frequency: 'HOURLY' }, 'frequency'],
  ];
  it.each(cases)('%s: 400 10001 naming the property', async (_name, request, property) => {
    const before = await stack.db.query('select count(*)::int as n from vendor');
    const reply = await api.post('/vendors', request);
    expect(failure(reply)).toEqual({
      status: 400,
      errorName: 'VALIDATION_GENERAL_FAILURE',
      code: 10001,
      property,
    });
    expect(reply.text).not.toContain('DE89370400440532013001');
    const after = await stack.db.query('select count(*)::int as n from vendor');
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it('XML errors come back as <messages>', async () => {
    const reply = await api.post(
      '/vendors',
      `<vendor xmlns="${NAMESPACE}"><country>DE</country></vendor>`,
      asXml,
    );
    expect(reply.status).toBe(400);
    expect(reply.text).toContain('<error-name>VALIDATION_GENERAL_FAILURE</error-name>');
  });

  it('an unknown vendor id is 404; a malformed one 400', async () => {
    expect(failure(await api.get('/vendors/999999999')).errorName).toBe('VENDOR_NOT_FOUND');
    expect(failure(await api.get('/vendors/abc')).status).toBe(400);
  });
});
