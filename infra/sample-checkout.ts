import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { z } from 'zod';
import { loadLauncherEnv } from './launcher-env.ts';

/**
 * A sample merchant checkout using Paywire's hosted payment fields, end to end:
 *   1. the merchant's server creates a payment fields token (its credentials never leave the server);
 *   2. the shopper types the card into the hosted fields (an iframe from Paywire, mounted by
 *      paywire-fields.js), which bind it to the token;
 *   3. the merchant's server sells with the token (pfToken) and shows the transaction.
 * `npm run sample-checkout` against a running `npm start`; createSampleCheckout runs it in-process.
 */

export interface SampleCheckoutOptions {
  /** Paywire's base URL, e.g. http://localhost:8080/services/2 */
  paywireUrl: string;
  username: string;
  password: string;
  /** The sample's one cart. */
  amount?: string;
  currency?: string;
}

interface Order {
  id: string;
  token: string;
  amount: string;
  currency: string;
  /** Answered attempts to pay: a declined card may be replaced in the fields and paid again. */
  attempts: number;
  paid?: PaymentResult;
}

interface PaymentResult {
  transactionId: string;
  cardType: string;
  cardLastFourDigits: string;
  amount: string;
  currency: string;
}

const assetDirectory = join(import.meta.dirname, 'sample-checkout');
const assets: Record<string, string> = {
  '/checkout.js': 'text/javascript; charset=utf-8',
  '/checkout.css': 'text/css; charset=utf-8',
};
const maxOpenOrders = 1000;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

class PaywireError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** The description of the first error in Paywire's error body, or the HTTP status. */
async function paywireError(response: Response): Promise<PaywireError> {
  const body = (await response.json().catch(() => undefined)) as
    | { message?: Array<{ errorName?: string; description?: string }> }
    | undefined;
  const first = body?.message?.[0];
  const text = first ? `${first.errorName}: ${first.description}` : `HTTP ${response.status}`;
  return new PaywireError(response.status, text);
}

export function createSampleCheckout(options: SampleCheckoutOptions): Server {
  const base = options.paywireUrl.replace(/\/+$/, '');
  const paywireOrigin = new URL(base).origin;
  const authorization = `Basic ${Buffer.from(`${options.username}:${options.password}`).toString('base64')}`;
  const amount = options.amount ?? '25.00';
  const currency = options.currency ?? 'USD';
  const orders = new Map<string, Order>(); // by token

  /** Step 1, server side: a token for this checkout. */
  async function newOrder(): Promise<Order> {
    const response = await fetch(`${base}/payment-fields-tokens`, {
      method: 'POST',
      headers: { authorization },
    });
    if (response.status !== 201) throw await paywireError(response);
    const token = response.headers.get('location')?.split('/').pop() ?? '';
    const order = { id: `order-${randomBytes(6).toString('hex')}`, token, amount, currency, attempts: 0 };
    if (orders.size >= maxOpenOrders) orders.delete(orders.keys().next().value as string);
    orders.set(token, order);
    return order;
  }

  /** Step 3, server side: the sale with the token the shopper's card is now bound to. */
  async function pay(order: Order): Promise<PaymentResult> {
    if (order.paid) return order.paid;
    const response = await fetch(`${base}/transactions`, {
      method: 'POST',
      headers: {
        authorization,
        'content-type': 'application/json',
        accept: 'application/json',
        // A retry of this attempt (no answer came) never charges twice; a new card after a decline is a new attempt.
        'idempotency-key': `${order.id}-${order.attempts}`,
      },
      body: JSON.stringify({
        cardTransactionType: 'AUTH_CAPTURE',
        pfToken: order.token,
        amount: order.amount,
        currency: order.currency,
        merchantTransactionId: order.id,
        softDescriptor: 'PAYWIRE SAMPLE',
      }),
    });
    if (response.status !== 200) {
      order.attempts += 1;
      throw await paywireError(response);
    }
    const sale = (await response.json()) as {
      transactionId: string;
      currency: string;
      creditCard: { cardType: string; cardLastFourDigits: string };
    };
    order.paid = {
      transactionId: sale.transactionId,
      cardType: sale.creditCard.cardType,
      cardLastFourDigits: sale.creditCard.cardLastFourDigits,
      amount: order.amount, // the shop's own decimal text; Paywire's JSON number is the same amount
      currency: sale.currency,
    };
    return order.paid;
  }

  function checkoutPage(order: Order): string {
    const total = `${escapeHtml(order.amount)} ${escapeHtml(order.currency)}`;
    return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sample shop: checkout</title>
<link rel="stylesheet" href="/checkout.css">
<script src="${escapeHtml(base)}/hosted-fields/paywire-fields.js"></script>
<script src="/checkout.js" defer></script>
</head>
<body>
<main>
  <h1>Sample shop</h1>
  <section class="order">
    <p class="muted">Order <span id="order-id">${escapeHtml(order.id)}</span></p>
    <p class="line"><span>Paywire T-shirt</span><strong>${total}</strong></p>
  </section>
  <h2>Card</h2>
  <div id="card-fields" data-token="${escapeHtml(order.token)}"></div>
  <p id="brand-line" class="muted"></p>
  <button id="pay" type="button" disabled>Pay ${total}</button>
  <p id="message" role="status"></p>
  <section id="result" class="result" hidden>
    <h2>Payment approved</h2>
    <dl>
      <dt>Transaction</dt><dd id="transaction-id"></dd>
      <dt>Card</dt><dd id="card"></dd>
      <dt>Amount</dt><dd id="amount"></dd>
    </dl>
  </section>
  <p><a href="/">Start a new order</a></p>
</main>
</body>
</html>
`;
  }

  function send(res: ServerResponse, status: number, type: string, body: string): void {
    res.writeHead(status, {
      'content-type': type,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    });
    res.end(body);
  }

  const json = (res: ServerResponse, status: number, body: unknown) =>
    send(res, status, 'application/json', JSON.stringify(body));

  async function readJson(req: IncomingMessage): Promise<unknown> {
    let text = '';
    for await (const chunk of req) {
      text += chunk;
      if (text.length > 10_000) throw new PaywireError(413, 'body too large');
    }
    return JSON.parse(text);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://sample').pathname;
    if (req.method === 'GET' && path === '/') {
      const order = await newOrder();
      res.setHeader(
        'content-security-policy',
        [
          "default-src 'none'",
          `script-src 'self' ${paywireOrigin}`,
          "style-src 'self'",
          "connect-src 'self'",
          `frame-src ${paywireOrigin}`,
          "form-action 'none'",
          "base-uri 'none'",
          "frame-ancestors 'none'",
        ].join('; '),
      );
      return send(res, 200, 'text/html; charset=utf-8', checkoutPage(order));
    }
    const assetType = assets[path];
    if (req.method === 'GET' && assetType) {
      return send(res, 200, assetType, readFileSync(join(assetDirectory, path.slice(1)), 'utf8'));
    }
    if (req.method === 'POST' && path === '/pay') {
      // JSON only: a cross-site form cannot send it without the browser asking first (no CORS here).
      if (!req.headers['content-type']?.startsWith('application/json')) {
        return json(res, 415, { error: 'send JSON' });
      }
      const body = (await readJson(req).catch(() => undefined)) as { token?: unknown } | undefined;
      const order = typeof body?.token === 'string' ? orders.get(body.token) : undefined;
      if (!order) return json(res, 404, { error: 'no such order' });
      try {
        return json(res, 200, await pay(order));
      } catch (error) {
        if (!(error instanceof PaywireError)) throw error;
        return json(res, 402, { error: error.message });
      }
    }
    return send(res, 404, 'text/plain; charset=utf-8', 'not found');
  }

  return createServer((req, res) => {
    handle(req, res).catch(() => {
      // The sample's only dependency: Paywire down, unreachable or refusing the merchant's credentials.
      if (!res.headersSent) send(res, 502, 'text/plain; charset=utf-8', 'the shop could not reach Paywire');
      else res.end();
    });
  });
}

if (import.meta.main) {
  const launcher = loadLauncherEnv();
  const env = z
    .object({
      PAYWIRE_URL: z.url().default(`http://localhost:${launcher.PORT}/services/2`),
      SAMPLE_CHECKOUT_HOST: z.string().default('127.0.0.1'),
      SAMPLE_CHECKOUT_PORT: z.coerce.number().int().default(4000),
    })
    .parse(process.env);
  const server = createSampleCheckout({
    paywireUrl: env.PAYWIRE_URL,
    username: launcher.SANDBOX_API_USERNAME,
    password: launcher.SANDBOX_API_PASSWORD,
  });
  server.listen(env.SAMPLE_CHECKOUT_PORT, env.SAMPLE_CHECKOUT_HOST, () => {
    process.stdout.write(
      `Sample checkout: http://${env.SAMPLE_CHECKOUT_HOST}:${env.SAMPLE_CHECKOUT_PORT}/ (Paywire at ${env.PAYWIRE_URL}, merchant ${launcher.SANDBOX_API_USERNAME})\nTest card: 4263 9826 4026 9299, any future expiry, CVV 837. Ctrl-C to stop.\n`,
    );
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.on(signal, () => server.close(() => process.exit(0)));
}
