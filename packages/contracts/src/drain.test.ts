import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { drainable } from './drain.ts';

const servers: http.Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.closeAllConnections();
});

async function startDrainable() {
  const server = http.createServer((_request, response) => response.end('ok'));
  servers.push(server);
  const drain = drainable(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { drain, port: (server.address() as AddressInfo).port };
}

/** One GET through the agent: its status, its Connection header, and whether it went on a pooled socket. */
const get = (agent: http.Agent, port: number) =>
  new Promise<{ status: number; connection: string | undefined; reused: boolean }>((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, agent }, (response) => {
      response.resume();
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          connection: response.headers.connection,
          reused: request.reusedSocket,
        }),
      );
    });
    request.on('error', reject);
  });

describe('a drain', () => {
  it('answers a request sent on a connection idle from before it, telling the client to close it', async () => {
    const { drain, port } = await startDrainable();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    expect(await get(agent, port)).toMatchObject({ status: 200, reused: false });
    const drained = drain.drain(10_000);
    // the client's pool still holds the socket, and sends on it while the drain runs
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await get(agent, port)).toEqual({ status: 200, connection: 'close', reused: true });
    await drained;
    agent.destroy();
  });

  it('closes a connection its client leaves idle once the client had time to let it go, and ends', {
    timeout: 30_000,
  }, async () => {
    const { drain, port } = await startDrainable();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    await get(agent, port);
    const [socket] = Object.values(agent.freeSockets).flat();
    const closed = new Promise<void>((resolve) => socket?.once('close', () => resolve()));
    await drain.drain(20_000);
    await closed;
    agent.destroy();
  });
});
