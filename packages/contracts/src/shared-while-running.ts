/**
 * Work keyed by what it is about, shared while it runs: a call for a key whose work is in flight gets that
 * work's promise instead of starting its own (a credential checked once for every request that arrives
 * while its check runs). Facade and core share it. `joined` tells the caller which way it went.
 */
export function sharedWhileRunning<T>(): (
  key: string,
  run: () => Promise<T>,
) => { answer: Promise<T>; joined: boolean } {
  const running = new Map<string, Promise<T>>();
  return (key, run) => {
    const inFlight = running.get(key);
    if (inFlight) return { answer: inFlight, joined: true };
    const answer = run().finally(() => running.delete(key));
    running.set(key, answer);
    return { answer, joined: false };
  };
}
