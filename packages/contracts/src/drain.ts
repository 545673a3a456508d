import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** An HTTP server that can stop gracefully: facade and core share it. */
export interface DrainableServer {
  /** True from the start of drain(): readiness fails on it. */
  readonly draining: boolean;
  /**
   * Fails readiness and answers every request with `Connection: close` (so clients reconnect elsewhere);
   * after delayMs (for load balancers that poll readiness) lets go of the keep-alive connections left idle
   * from before, then stops accepting connections; lets what already arrived finish, and closes whatever
   * is left once graceMs have passed since the start.
   */
  drain(graceMs: number, delayMs?: number): Promise<void>;
}

/**
 * How long a connection idle from before the drain is left to its client. Closing a socket at once races a
 * request its client may be sending on it, which then fails unread (the facade would answer 503). Within
 * this time the client either sends on it (the answer says `Connection: close`, and the socket closes after
 * it) or its pool drops the socket itself (the facade's pool drops sockets idle for 1 s); only then is it
 * closed here.
 */
const idleGraceMs = 2_000;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function drainable(server: Server): DrainableServer {
  let draining = false;
  /** Each open connection: its requests in flight, and since when it has had none. */
  const connections = new Map<Socket, { busy: number; idleSince: number }>();
  server.on('connection', (socket: Socket) => {
    connections.set(socket, { busy: 0, idleSince: Date.now() });
    socket.once('close', () => connections.delete(socket));
  });
  // First of the request listeners: the count and the header must precede any handler's answer.
  server.prependListener('request', (request, response) => {
    const connection = connections.get(request.socket);
    if (connection) connection.busy++;
    response.once('close', () => {
      if (connection) {
        connection.busy--;
        connection.idleSince = Date.now();
      }
    });
    if (draining) response.setHeader('connection', 'close');
  });
  const inFlight = () => [...connections.values()].some(({ busy }) => busy > 0);
  /** Closes the connections idle for idleGraceMs; whether any idle one is left to its client still. */
  const closeLongIdle = () => {
    const now = Date.now();
    let waiting = false;
    for (const [socket, { busy, idleSince }] of connections) {
      if (busy > 0) continue;
      if (now - idleSince >= idleGraceMs) socket.destroy();
      else waiting = true;
    }
    return waiting;
  };
  return {
    get draining() {
      return draining;
    },
    async drain(graceMs, delayMs = 0) {
      const deadline = Date.now() + graceMs;
      draining = true;
      await pause(Math.min(delayMs, graceMs));
      while (closeLongIdle() && Date.now() < deadline) await pause(20);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      while (inFlight() && Date.now() < deadline) await pause(20);
      server.closeAllConnections();
      await closed;
    },
  };
}
