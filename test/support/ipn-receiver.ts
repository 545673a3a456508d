import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One IPN as the merchant's endpoint got it. */
export interface ReceivedIpn {
  method: string;
  /** The request's path (hooks carry no query). */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  params: URLSearchParams;
  /** When it arrived, ms since the epoch. */
  at: number;
}

/** A merchant's IPN endpoint on 127.0.0.1 that acknowledges every delivery with 200. */
export interface IpnReceiver {
  origin: string;
  /** Every request, in arrival order. */
  requests: ReceivedIpn[];
  /** A fresh hook URL on the receiver, so a test reads only its own deliveries. */
  newHook(): string;
  /** The requests that reached one hook URL, in arrival order. */
  at(hook: string): ReceivedIpn[];
  close(): Promise<void>;
}

/**
 * A merchant's IPN configuration (the body of POST /notification-config) sending the events its flags name
 * (`sendCharge` ...) to one hook or several (one destination each, same flags), with no receipt required.
 */
export function hookConfig(hooks: string | readonly string[], flags: readonly string[]) {
  const flagged = Object.fromEntries(flags.map((flag) => [flag, true]));
  return {
    ipnDestinations: (typeof hooks === 'string' ? [hooks] : hooks).map((hook) => ({
      ipnUrl: hook,
      ...flagged,
    })),
    ensureNotificationReceipt: false,
    receiveAffiliateNotifications: false,
  };
}

export async function startIpnReceiver(): Promise<IpnReceiver> {
  const requests: ReceivedIpn[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      // Recorded before answering: once core marks a delivery delivered, its request is in this list.
      requests.push({
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body,
        params: new URLSearchParams(body),
        at: Date.now(),
      });
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    newHook: () => `${origin}/ipn/${randomBytes(6).toString('hex')}`,
    at: (hook) => requests.filter((request) => `${origin}${request.path}` === hook),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
