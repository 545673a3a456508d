import type { Server } from 'node:http';

/** An HTTP server that can stop gracefully: facade and core share it. */
export interface DrainableServer {
  /** True from the start of drain(): readiness fails on it. */
  readonly draining: boolean;
  /**
   * Fails readiness and answers every request with `Connection: close` (so clients reconnect elsewhere);
   * after delayMs (for load balancers that poll readiness) stops accepting connections and closes idle ones;
   * lets what already arrived finish, and closes whatever is left once graceMs have passed since the start.
   */
  drain(graceMs: number, delayMs?: number): Promise<void>;
}

export function drainable(server: Server): DrainableServer {
  let inFlight = 0;
  let draining = false;
  // First of the request listeners: the count and the header must precede any handler's answer.
  server.prependListener('request', (_request, response) => {
    inFlight++;
    response.once('close', () => inFlight--);
    if (draining) response.setHeader('connection', 'close');
  });
  return {
    get draining() {
      return draining;
    },
    async drain(graceMs, delayMs = 0) {
      const deadline = Date.now() + graceMs;
      draining = true;
      await new Promise((resolve) => setTimeout(resolve, Math.min(delayMs, graceMs)));
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      while (inFlight > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      server.closeAllConnections();
      await closed;
    },
  };
}
