import { availableParallelism } from 'node:os';

/** The gate refused to queue a hash: the caller answers "retry later" without hashing anything. */
export class HashingBusy extends Error {
  constructor() {
    super('too many password checks are waiting');
    this.name = 'HashingBusy';
  }
}

/**
 * Password hashes are slow on purpose (scrypt, tens of milliseconds of CPU each), so guessing must not be
 * able to fill the machine with them and starve everything else, real logins first. The gate runs at most
 * `concurrency` hashes at once and queues at most `maxWaiting`. A lane is who asks (a client address):
 * the waiting hash whose lane asked least in the last `windowMs` runs next, and when the queue is full
 * the lane that asked most loses its place. A guesser therefore delays a login from elsewhere by about
 * one hash, however fast it guesses. A deferrable hash (one that can prove no account, for a username
 * that does not exist) runs after all others, loses its place first, and never takes the one slot beyond
 * `concurrency` kept for the others: guesses spread over many addresses cannot keep real merchants
 * waiting, not even for the guess being hashed.
 */
export interface PasswordGate {
  run<T>(lane: string, hash: () => Promise<T>, options?: { deferrable?: boolean }): Promise<T>;
}

interface Waiting {
  lane: string;
  deferrable: boolean;
  start(): void;
  shed(): void;
}

export interface GateOptions {
  concurrency?: number;
  maxWaiting?: number;
  windowMs?: number;
}

export function createPasswordGate(options: GateOptions = {}): PasswordGate {
  // Half the cores at most: the rest keep serving payments while logins are hashed.
  const concurrency = options.concurrency ?? Math.max(1, Math.floor(availableParallelism() / 2));
  const maxWaiting = options.maxWaiting ?? 16;
  const windowMs = options.windowMs ?? 10_000;
  const waiting: Waiting[] = [];
  let running = 0;
  /** Running hashes that are not deferrable: never more than `concurrency`. */
  let runningFirm = 0;
  let usage = new Map<string, number>();
  let windowStart = Date.now();

  const usageOf = (lane: string) => {
    if (Date.now() - windowStart > windowMs) {
      usage = new Map();
      windowStart = Date.now();
    }
    return usage.get(lane) ?? 0;
  };
  /** Which of two entries goes later: deferrable ones, then those of lanes that asked more. */
  const later = (a: Waiting, b: Waiting): number =>
    Number(a.deferrable) - Number(b.deferrable) || usageOf(a.lane) - usageOf(b.lane);
  /** The waiting entry to run first (first in the queue on a tie), or the one to give up first. */
  const pick = (first: boolean): number => {
    let chosen = 0;
    for (let index = 1; index < waiting.length; index++) {
      const order = later(waiting[index] as Waiting, waiting[chosen] as Waiting);
      if (first ? order < 0 : order > 0) chosen = index;
    }
    return chosen;
  };

  const mayStart = (entry: Waiting) =>
    entry.deferrable ? running < concurrency : runningFirm < concurrency && running < concurrency + 1;

  const admit = (entry: Waiting) => {
    const asked = usageOf(entry.lane) + 1; // read before writing: it may start a new window (a new map)
    usage.set(entry.lane, asked);
    if (mayStart(entry)) return entry.start();
    if (waiting.length < maxWaiting) return void waiting.push(entry);
    const heaviest = pick(false);
    const evicted = waiting[heaviest];
    if (evicted && later(evicted, entry) > 0) {
      waiting.splice(heaviest, 1);
      waiting.push(entry);
      return evicted.shed();
    }
    entry.shed();
  };

  /** The first in order, if it may start: after it, none may (deferrable ones come last). */
  const startNext = () => {
    const next = pick(true);
    const entry = waiting[next];
    if (entry && mayStart(entry)) waiting.splice(next, 1)[0]?.start();
  };

  return {
    run<T>(lane: string, hash: () => Promise<T>, options: { deferrable?: boolean } = {}) {
      return new Promise<T>((resolve, reject) => {
        admit({
          lane,
          deferrable: options.deferrable === true,
          start: () => {
            const firm = options.deferrable !== true;
            running++;
            if (firm) runningFirm++;
            hash()
              .then(resolve, reject)
              .finally(() => {
                running--;
                if (firm) runningFirm--;
                startNext();
              });
          },
          shed: () => reject(new HashingBusy()),
        });
      });
    },
  };
}

declare module '../context.ts' {
  interface CoreServices {
    /** Bounds the password hashes running and waiting, so guessing cannot starve real logins. */
    passwords: PasswordGate;
  }
}
