import { pino } from 'pino';
import { redactText } from './redact.ts';

export type Logger = pino.Logger;

/** Fields that hold a secret whatever their value looks like, at any of the first three levels. */
const sensitiveFields = [
  'authorization',
  'password',
  'secret',
  'token',
  'pfToken',
  'credential',
  'cardNumber',
  'encryptedCardNumber',
  'securityCode',
  'cvv',
  'cvc',
  'iban',
  'ipnSecret',
  'authKey',
  'apiKey',
];
const redactPaths = sensitiveFields.flatMap((field) => [field, `*.${field}`, `*.*.${field}`]);

/**
 * A JSON-lines logger for a process (facade, core): ISO times, level names, the service's name on every
 * line, sensitive fields censored by name and every finished line scrubbed of card numbers, IBANs,
 * credentials and Authorization values by pattern. Lines go to stdout unless `write` takes them.
 */
export function createLogger(
  service: string,
  write: (line: string) => void = (line) => process.stdout.write(line),
  level: string = process.env.LOG_LEVEL ?? 'info',
): Logger {
  return pino(
    {
      level,
      base: { service },
      messageKey: 'message',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: pino.stdSerializers.err, error: pino.stdSerializers.err },
      redact: { paths: redactPaths, censor: '[redacted]' },
    },
    { write: (line: string) => write(redactText(line)) },
  );
}

const writesNothing = () => {};

/**
 * `parent.child(bindings)`, made when it first writes a line: making a child runs its bindings through the
 * redaction of every sensitive path, which costs more than most requests ever log. A level the parent
 * does not write is answered without making the child.
 */
export function childOnFirstLine(parent: Logger, bindings: pino.Bindings): Logger {
  let child: Logger | undefined;
  const made = () => {
    child ??= parent.child(bindings);
    return child;
  };
  return new Proxy(parent, {
    get(_, property) {
      if (
        child === undefined &&
        typeof property === 'string' &&
        Object.hasOwn(parent.levels.values, property)
      ) {
        if (!parent.isLevelEnabled(property)) return writesNothing;
      }
      const value: unknown = Reflect.get(made(), property);
      return typeof value === 'function' ? value.bind(child) : value;
    },
    set: (_, property, value) => Reflect.set(made(), property, value),
  });
}
