import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { keepAliveFetch } from './transport.ts';

const servers: http.Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A server answering `{"ms": n}` after ?ms=n; it keeps idle connections a minute and lists them. */
async function slowServer(connections: Socket[], closed: Socket[]) {
  const server = http.createServer((request, response) => {
    const ms = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('ms') ?? 0);
    setTimeout(() => response.end(JSON.stringify({ ms })), ms);
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', (socket: Socket) => {
    connections.push(socket);
    socket.once('close', () => closed.push(socket));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

describe("core's connection pool", () => {
  it('waits for an answer slower than its idle timeout on the same socket, then lets the socket go', {
    timeout: 30_000,
  }, async () => {
    const connections: Socket[] = [];
    const closed: Socket[] = [];
    const url = await slowServer(connections, closed);
    const fetch = keepAliveFetch(1);
    expect(await (await fetch(`${url}?ms=1500`)).json()).toEqual({ ms: 1500 });
    expect(await (await fetch(`${url}?ms=0`)).json()).toEqual({ ms: 0 });
    expect(connections).toHaveLength(1); // one socket, kept through the slow answer and used again
    // idle, the socket is closed by the pool itself: the server would keep it a minute
    const [socket] = connections;
    if (socket && !closed.includes(socket)) await new Promise((resolve) => socket.once('close', resolve));
  });
});
