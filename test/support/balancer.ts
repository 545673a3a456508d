import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP load balancer on 127.0.0.1, as a Kubernetes Service behaves: each new connection goes, round robin,
 * to a backend found ready (every 100 ms; by default its GET /readyz answered 200 within a second); open
 * connections stay where they are. As with the manifests' readiness probes (failureThreshold: 2), a ready
 * backend leaves after two failed looks in a row, not one: a single slow answer on a loaded machine would
 * otherwise leave no backend, and the connection would be refused. Backends are ports on 127.0.0.1 and can
 * be replaced while it runs: with one backend and a probe that trusts whoever re-points it, it is
 * CloudNativePG's `-rw` Service.
 */
export interface Balancer {
  port: number;
  /** The backends' ports; a restarted process may come back on another. */
  backends: number[];
  close(): Promise<void>;
}

const answersReadyz = (port: number) =>
  fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1000) }).then(
    (response) => response.ok,
    () => false,
  );

const failureThreshold = 2;

export async function startBalancer(
  backends: number[],
  isReady: (port: number) => Promise<boolean> = answersReadyz,
): Promise<Balancer> {
  const ready = new Set<number>();
  const failedLooks = new Map<number, number>();
  let next = 0;
  let closed = false;
  const balancer: Balancer = { port: 0, backends, close: async () => {} };

  const look = async () => {
    while (!closed) {
      await Promise.all(
        balancer.backends.map(async (port) => {
          if (await isReady(port)) {
            ready.add(port);
            failedLooks.set(port, 0);
            return;
          }
          const failed = (failedLooks.get(port) ?? 0) + 1;
          failedLooks.set(port, failed);
          if (failed >= failureThreshold) ready.delete(port);
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
