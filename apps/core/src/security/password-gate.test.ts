import { describe, expect, it } from 'vitest';
import { createPasswordGate, HashingBusy } from './password-gate.ts';

/** A hash the test finishes by hand, recording the order in which hashes start. */
function manualHashes() {
  const started: string[] = [];
  const finishers: (() => void)[] = [];
  const hash = (name: string) => () =>
    new Promise<string>((resolve) => {
      started.push(name);
      finishers.push(() => resolve(name));
    });
  const finishNext = async () => {
    finishers.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { started, hash, finishNext };
}

describe('the password gate', () => {
  it('runs at most its concurrency, and next the lane that asked least', async () => {
    const gate = createPasswordGate({ concurrency: 1, maxWaiting: 8 });
    const { started, hash, finishNext } = manualHashes();
    const runs = ['a1', 'a2', 'a3', 'a4'].map((name) => gate.run('guesser', hash(name)));
    const real = gate.run('merchant', hash('m1'));
    expect(started).toEqual(['a1']);
    await finishNext();
    expect(started).toEqual(['a1', 'm1']); // ahead of the guesser's three waiting hashes
    for (let index = 0; index < 4; index++) await finishNext();
    expect(started).toEqual(['a1', 'm1', 'a2', 'a3', 'a4']);
    await expect(real).resolves.toBe('m1');
    await expect(Promise.all(runs)).resolves.toEqual(['a1', 'a2', 'a3', 'a4']);
  });

  it('when full, sheds a waiting hash of the busiest lane for a quieter lane, and refuses the busiest itself', async () => {
    const gate = createPasswordGate({ concurrency: 1, maxWaiting: 2 });
    const { started, hash, finishNext } = manualHashes();
    const guesses = ['a1', 'a2', 'a3'].map((name) => gate.run('guesser', hash(name)).catch((error) => error));
    const refused = await gate.run('guesser', hash('a4')).catch((error) => error);
    expect(refused).toBeInstanceOf(HashingBusy);
    const real = gate.run('merchant', hash('m1'));
    await expect(guesses[1]).resolves.toBeInstanceOf(HashingBusy); // the guesser's oldest waiting one gave way
    await finishNext();
    expect(started).toEqual(['a1', 'm1']);
    await finishNext();
    await finishNext();
    await expect(real).resolves.toBe('m1');
    expect(started).toEqual(['a1', 'm1', 'a3']);
  });

  it('runs deferrable hashes after all others, never in the slot kept for the rest, and gives them up first', async () => {
    const gate = createPasswordGate({ concurrency: 1, maxWaiting: 2 });
    const { started, hash, finishNext } = manualHashes();
    // Guesses from many addresses, each asking once: lane counts alone could not tell them from a merchant.
    const guesses = ['g1', 'g2', 'g3'].map((name) =>
      gate.run(name, hash(name), { deferrable: true }).catch((error) => error),
    );
    const first = gate.run('merchant-1', hash('m1'));
    expect(started).toEqual(['g1', 'm1']); // at once, beside the guess being hashed
    const second = gate.run('merchant-2', hash('m2'));
    await expect(guesses[1]).resolves.toBeInstanceOf(HashingBusy); // the full queue gave up a guess
    await finishNext(); // g1: m2 still waits, only one hash that is not deferrable runs at a time
    expect(started).toEqual(['g1', 'm1']);
    await finishNext(); // m1
    expect(started).toEqual(['g1', 'm1', 'm2']);
    await finishNext(); // m2
    expect(started).toEqual(['g1', 'm1', 'm2', 'g3']);
    await finishNext();
    await expect(Promise.all([first, second])).resolves.toEqual(['m1', 'm2']);
  });
});
