import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP load balancer on 127.0.0.1, as a Kubernetes Service behaves: each new connection goes, round robin,
 * to a backend found ready at the last look (every 100 ms; by default its GET /readyz answered 200); open
 * connections stay where they are. Backends are ports on 127.0.0.1 and can be replaced while it runs: with
 * one backend and a probe that trusts whoever re-points it, it is CloudNativePG's `-rw` Service.
 */
export interface Balancer {
  port: number;
  /** The backends' ports; a restarted process may come back on another. */
  backends: number[];
  close(): Promise<void>;
}

const answersReadyz = (port: number) =>
  fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(500) }).then(
    (response) => response.ok,
    () => false,
  );

export async function startBalancer(
  backends: number[],
  isReady: (port: number) => Promise<boolean> = answersReadyz,
): Promise<Balancer> {
  const ready = new Set<number>();
  let next = 0;
  let closed = false;
  const balancer: Balancer = { port: 0, backends, close: async () => {} };

  const look = async () => {
    while (!closed) {
      await Promise.all(
        balancer.backends.map(async (port) => {
          if (await isReady(port)) ready.add(port);
          else ready.delete(port);
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    const candidates = balancer.backends.filter((port) => ready.has(port));
    const port = candidates[next++ % Math.max(1, candidates.length)];
    if (port === undefined) return client.destroy();
    const backend = createConnection(port, '127.0.0.1');
    client.pipe(backend).pipe(client);
    client.on('error', () => backend.destroy());
    backend.on('error', () => client.destroy());
    client.on('close', () => backend.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  balancer.port = typeof address === 'object' && address ? address.port : 0;
  const looking = look();
  balancer.close = async () => {
    closed = true;
    await looking;
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of open) socket.destroy();
    await stopped;
  };
  return balancer;
}
