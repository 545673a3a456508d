import type { Server } from 'node:http';

/** An HTTP server that can stop gracefully: facade and core share it. */
export interface DrainableServer {
  /** True from the start of drain(): readiness fails on it. */
  readonly draining: boolean;
  /**
   * Stops accepting connections, closes idle keep-alive ones, answers what already arrived (each with
   * `Connection: close`, so its client reconnects elsewhere), and after graceMs closes whatever is left.
   */
  drain(graceMs: number): Promise<void>;
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
    async drain(graceMs) {
      const deadline = Date.now() + graceMs;
      draining = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      while (inFlight > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      server.closeAllConnections();
      await closed;
    },
  };
}
