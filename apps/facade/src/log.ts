/**
 * JSON lines on stdout. Callers pass only what is safe to keep: never bodies, headers or card data.
 * Errors are reduced to name, message and stack, which our code keeps free of card data.
 */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

function serialise(value: unknown): unknown {
  if (value instanceof Error) {
    return { name: value.name, message: value.message, stack: value.stack, cause: serialise(value.cause) };
  }
  return value;
}

export function createLogger(
  service: string,
  sink: (line: string) => void = (line) => process.stdout.write(line),
): Logger {
  const write = (level: string, message: string, fields: Record<string, unknown> = {}) => {
    const entry = Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, serialise(value)]));
    sink(`${JSON.stringify({ time: new Date().toISOString(), level, service, message, ...entry })}\n`);
  };
  return {
    info: (message, fields) => write('info', message, fields),
    error: (message, fields) => write('error', message, fields),
  };
}

/** A payment fields token in a path is a credential for the card bound to it: it stays out of the log. */
export function loggablePath(path: string): string {
  return path.replace(/(\/payment-fields-tokens\/)[^/]+/, '$1[token]');
}
