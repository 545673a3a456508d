// Issue 27, wallet onboarding: the merchant's Apple Pay domains (POST, PUT /wallets/onboarding, GET
// /wallets/onboarding/{id}) and the Apple Pay session of Create Wallet (POST /wallets), over real HTTP in JSON
// and XML and through the original's published Node SDK. Apple's gateway cannot be reached from a test: the
// session request goes to a fake gateway that checks it and answers as Apple's merchant validation does.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, client, expectStatus, type Reply } from '../support/http.ts';
import { publishedSdk } from '../support/published-sdk.ts';
import { type Stack, startStack, type TestMerchant } from '../support/stack.ts';

const platformIdentifier = 'merchant.com.paywire.platform';
const appleSandboxUrl = 'https://apple-pay-gateway-cert.apple.com/paymentservices/startSession';
const walletShape = {
  root: 'wallet',
  repeated: ['domains', 'unregisterDomains'],
  elementNames: { domains: 'domain', unregisterDomains: 'unregister-domain' },
};

/** A merchant validation request as the fake gateway got it. */
interface SessionCall {
  contentType: string | undefined;
  body: Record<string, unknown>;
}

/**
 * Apple's merchant validation endpoint as Apple documents it: POST JSON {merchantIdentifier, displayName,
 * initiative, initiativeContext}; 200 with the opaque merchant session object, 400 with Apple's status body
 * for a request it refuses. `refused.example.com` is refused, `drop.example.com` never answered.
 */
async function startFakeAppleGateway() {
  const calls: SessionCall[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      calls.push({ contentType: request.headers['content-type'], body });
      const wellFormed =
        request.method === 'POST' &&
        Object.keys(body).sort().join() === 'displayName,initiative,initiativeContext,merchantIdentifier' &&
        body.initiative === 'web';
      if (body.initiativeContext === 'drop.example.com') return request.socket.destroy();
      if (!wellFormed || body.initiativeContext === 'refused.example.com') {
        response.writeHead(400, { 'content-type': 'application/json' });
        return response.end(
          JSON.stringify({ statusMessage: 'Payment Services Exception', statusCode: '400' }),
        );
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          epochTimestamp: 1_700_000_000_000,
          expiresAt: 1_700_003_600_000,
          merchantSessionIdentifier: `SSH${calls.length}0F1E2D3C4B5A6978_916523AAED1343F5BC5815E12BEE9250`,
          nonce: '61ad2ea1',
          merchantIdentifier: '033E623C661BAB9C4A9E17C5FE0B56728A849CFCD71929664B56DF3581DFDAD3',
          domainName: body.initiativeContext,
          displayName: body.displayName,
          signature: '308006092a864886f70d010702a0803080020101310f300d06096086480165030402010500',
          operationalAnalyticsIdentifier: 'Paywire:033E623C661BAB9C4A9E17C5FE0B56728A849CFCD71929664B56DF',
          retries: 0,
          pspId: '033E623C661BAB9C4A9E17C5FE0B56728A849CFCD71929664B56DF3581DFDAD3',
        }),
      );
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/paymentservices/startSession`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

let stack: Stack;
let api: ReturnType<typeof client>;
let apple: Awaited<ReturnType<typeof startFakeAppleGateway>>;

beforeAll(async () => {
  apple = await startFakeAppleGateway();
  stack = await startStack({
    applePayGateway: { merchantIdentifier: platformIdentifier, url: apple.url, timeoutMs: 2000 },
  });
  api = client(stack);
});
afterAll(async () => {
  await stack?.close();
  await apple?.close();
});

const xml = (merchant: TestMerchant) => ({ ...as(merchant), format: 'xml' as const, shape: walletShape });
const walletXml = (inner: string) => `<wallet xmlns="http://ws.plimus.com">${inner}</wallet>`;

/** The onboarding id from Location, checked to be the reference's URL. */
function onboardingIdOf(reply: Reply): string {
  expect(reply.text).toBe('');
  const location = reply.headers.get('location') ?? '';
  expect(location).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/services\/2\/wallets\/onboarding\/\d+$/);
  return location.split('/').pop() ?? '';
}

async function onboardingRows(merchant: TestMerchant) {
  const { rows } = await stack.db.query<{ id: string; domains: string[] }>(
    'select id::text, domains from wallet_onboarding where merchant_id = $1',
    [merchant.id],
  );
  return rows;
}

function decodedToken(reply: Reply): Record<string, unknown> {
  return JSON.parse(Buffer.from(String(reply.body.walletToken), 'base64').toString('utf8'));
}

describe('Apple Pay onboarding', () => {
  it('registers domains (once per merchant, added to later), retrieves and updates them in JSON', async () => {
    const merchant = await stack.newMerchant();
    const onboard = (domains: string[]) =>
      api.post('/wallets/onboarding', { walletType: 'APPLE_PAY', applePay: { domains } }, as(merchant));
    const id = onboardingIdOf(expectStatus(await onboard(['Shop.Example.com', 'pay.example.com']), 201));
    expect(
      onboardingIdOf(expectStatus(await onboard(['checkout.example.com', 'shop.example.com']), 201)),
    ).toBe(id);

    const got = expectStatus(await api.get(`/wallets/onboarding/${id}`, as(merchant)), 200);
    expect(got.body).toEqual({
      walletType: 'APPLE_PAY',
      applePay: { domains: ['checkout.example.com', 'pay.example.com', 'shop.example.com'] },
    });

    const updated = expectStatus(
      await api.put(
        '/wallets/onboarding',
        {
          walletType: 'APPLE_PAY',
          applePay: { domains: ['new.example.com'], unregisterDomains: ['pay.example.com'] },
        },
        as(merchant),
      ),
      200,
    );
    expect(updated.body.applePay.domains).toEqual([
      'checkout.example.com',
      'new.example.com',
      'shop.example.com',
    ]);
    const { rows } = await stack.db.query(
      `select 1 from audit_event where merchant_id = $1 and action = 'wallet-onboarding.update' and object = $2`,
      [merchant.id, `wallet-onboarding:${id}`],
    );
    expect(rows).toHaveLength(3);
  });

  it('speaks XML: repeated domain and unregister-domain elements, answers valid against wallet.xsd', async () => {
    const merchant = await stack.newMerchant();
    const created = expectStatus(
      await api.post(
        '/wallets/onboarding',
        walletXml(
          '<wallet-type>APPLE_PAY</wallet-type><apple-pay><domain>a.example.com</domain><domain>b.example.com</domain></apple-pay>',
        ),
        xml(merchant),
      ),
      201,
    );
    const id = onboardingIdOf(created);
    const got = expectStatus(
      await api.get(`/wallets/onboarding/${id}`, { ...xml(merchant), accept: 'application/xml' }),
      200,
    );
    expect(got.text).toContain(
      '<wallet-type>APPLE_PAY</wallet-type><apple-pay><domain>a.example.com</domain><domain>b.example.com</domain></apple-pay>',
    );
    const updated = expectStatus(
      await api.put(
        '/wallets/onboarding',
        walletXml(
          '<wallet-type>APPLE_PAY</wallet-type><apple-pay><unregister-domain>a.example.com</unregister-domain></apple-pay>',
        ),
        xml(merchant),
      ),
      200,
    );
    expect(updated.body).toEqual({ walletType: 'APPLE_PAY', applePay: { domains: ['b.example.com'] } });
  });

  it('works through the original Node SDK: onboardApplePay, getApplePayOnboardInfo, createApplePayWallet', async () => {
    const sdk = publishedSdk(stack);
    const created = (await sdk.wallet.onboardApplePay({
      walletType: 'APPLE_PAY',
      applePay: { domains: ['sdk.example.com'] },
    })) as unknown as { status: number; headers: { get(name: string): string | null } };
    expect(created.status).toBe(201);
    const id = created.headers.get('location')?.split('/').pop() ?? '';
    const info = await sdk.wallet.getApplePayOnboardInfo(id);
    expect(info).toMatchObject({ walletType: 'APPLE_PAY', applePay: { domains: ['sdk.example.com'] } });
    const session = await sdk.wallet.createApplePayWallet({
      walletType: 'APPLE_PAY',
      validationUrl: appleSandboxUrl,
      domainName: 'sdk.example.com',
    });
    expect(session.walletType).toBe('APPLE_PAY');
    expect(JSON.parse(Buffer.from(session.walletToken, 'base64').toString('utf8'))).toMatchObject({
      domainName: 'sdk.example.com',
      nonce: '61ad2ea1',
    });
  });

  it('refuses bad input in the interface shape and stores nothing', async () => {
    const merchant = await stack.newMerchant();
    const refusals: [unknown, RegExp][] = [
      [{ walletType: 'GOOGLE_PAY', applePay: { domains: ['a.example.com'] } }, /^walletType$/],
      [{ walletType: 'APPLE_PAY', applePay: { domains: ['https://a.example.com'] } }, /^applePay\.domains/],
      [{ walletType: 'APPLE_PAY', applePay: { domains: [] } }, /^applePay\.domains/],
      [{ walletType: 'APPLE_PAY' }, /^applePay/],
    ];
    for (const [body, property] of refusals) {
      const reply = expectStatus(await api.post('/wallets/onboarding', body, as(merchant)), 400);
      expect(reply.body.message[0]).toMatchObject({ errorName: 'VALIDATION_GENERAL_FAILURE', code: 10001 });
      expect(reply.body.message[0].invalidProperty.name).toMatch(property);
    }
    const badXml = expectStatus(
      await api.post('/wallets/onboarding', walletXml('<wallet-type>APPLE_PAY</wallet-type>'), xml(merchant)),
      400,
    );
    expect(badXml.text).toContain('<code>10001</code>');
    expect(await onboardingRows(merchant)).toEqual([]);

    const notYet = expectStatus(
      await api.put(
        '/wallets/onboarding',
        { walletType: 'APPLE_PAY', applePay: { domains: ['a.example.com'] } },
        as(merchant),
      ),
      404,
    );
    expect(notYet.body.message[0]).toMatchObject({ errorName: 'WALLET_ONBOARDING_NOT_FOUND', code: 20092 });
    const neither = expectStatus(
      await api.put('/wallets/onboarding', { walletType: 'APPLE_PAY', applePay: {} }, as(merchant)),
      400,
    );
    expect(neither.body.message[0].code).toBe(10001);
    expect(await onboardingRows(merchant)).toEqual([]);

    const other = await stack.newMerchant();
    const id = onboardingIdOf(
      expectStatus(
        await api.post(
          '/wallets/onboarding',
          { walletType: 'APPLE_PAY', applePay: { domains: ['o.example.com'] } },
          as(other),
        ),
        201,
      ),
    );
    expectStatus(await api.get(`/wallets/onboarding/${id}`, as(merchant)), 404);
    expectStatus(await api.get('/wallets/onboarding/abc', as(merchant)), 400);
    expectStatus(await api.get(`/wallets/onboarding/${id}`, { merchant: null }), 401);
  });
});

describe('Apple Pay sessions (Create Wallet)', () => {
  let merchant: TestMerchant;
  const session = (fields: Record<string, unknown>) =>
    api.post(
      '/wallets',
      { walletType: 'APPLE_PAY', validationUrl: appleSandboxUrl, ...fields },
      as(merchant),
    );

  beforeAll(async () => {
    merchant = await stack.newMerchant();
    const domains = ['shop.example.com', 'refused.example.com', 'drop.example.com'];
    expectStatus(
      await api.post('/wallets/onboarding', { walletType: 'APPLE_PAY', applePay: { domains } }, as(merchant)),
      201,
    );
  });

  it("asks Apple's gateway as Paywire's platform identity and answers its session base-64 encoded", async () => {
    const before = apple.calls.length;
    const reply = expectStatus(
      await session({ domainName: 'shop.example.com', displayName: 'The Shop' }),
      200,
    );
    expect(reply.body.walletType).toBe('APPLE_PAY');
    expect(decodedToken(reply)).toMatchObject({
      domainName: 'shop.example.com',
      displayName: 'The Shop',
      nonce: '61ad2ea1',
    });
    expect(apple.calls.slice(before)).toEqual([
      {
        contentType: 'application/json',
        body: {
          merchantIdentifier: platformIdentifier,
          displayName: 'The Shop',
          initiative: 'web',
          initiativeContext: 'shop.example.com',
        },
      },
    ]);
    // displayName defaults to the domain (Apple requires one)
    const named = expectStatus(await session({ domainName: 'shop.example.com' }), 200);
    expect(decodedToken(named).displayName).toBe('shop.example.com');
  });

  it('speaks XML', async () => {
    const reply = expectStatus(
      await api.post(
        '/wallets',
        walletXml(
          `<wallet-type>APPLE_PAY</wallet-type><validation-url>${appleSandboxUrl}</validation-url><domain-name>shop.example.com</domain-name>`,
        ),
        { ...xml(merchant), accept: 'application/xml' },
      ),
      200,
    );
    expect(reply.text).toMatch(
      /<wallet-type>APPLE_PAY<\/wallet-type><wallet-token>[A-Za-z0-9+/=]+<\/wallet-token>/,
    );
    expect(decodedToken(reply).domainName).toBe('shop.example.com');
  });

  it("refuses unregistered domains and URLs that are not Apple's without asking Apple; maps its refusal and silence", async () => {
    const before = apple.calls.length;
    const unregistered = expectStatus(await session({ domainName: 'elsewhere.example.com' }), 400);
    expect(unregistered.body.message[0]).toMatchObject({
      code: 10001,
      invalidProperty: { name: 'domainName', messageValue: 'elsewhere.example.com' },
    });
    for (const validationUrl of [
      'http://169.254.169.254/latest/meta-data',
      'https://apple-pay-gateway.apple.com.evil.example/paymentservices/startSession',
      'https://apple-pay-gateway.apple.com:8443/paymentservices/startSession',
      'https://apple-pay-gateway.apple.com/other',
      'not a url',
    ]) {
      const reply = expectStatus(await session({ domainName: 'shop.example.com', validationUrl }), 400);
      expect(reply.body.message[0].invalidProperty.name).toBe('validationUrl');
    }
    const missing = expectStatus(
      await api.post('/wallets', { walletType: 'APPLE_PAY', domainName: 'shop.example.com' }, as(merchant)),
      400,
    );
    expect(missing.body.message[0].invalidProperty.name).toBe('validationUrl');
    expect(apple.calls.length).toBe(before);

    const refused = expectStatus(await session({ domainName: 'refused.example.com' }), 400);
    expect(refused.body.message[0]).toMatchObject({ errorName: 'APPLE_PAY_SESSION_FAILED', code: 20093 });
    const silent = expectStatus(await session({ domainName: 'drop.example.com' }), 503);
    expect(silent.body.message[0]).toMatchObject({ errorName: 'SERVICE_UNAVAILABLE' });
  });
});
