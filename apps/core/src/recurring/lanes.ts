/**
 * Runs `work` over items taken in batches from `take`, with at most `concurrency` items in flight: one lane
 * per slot; a lane whose buffer is empty asks for the next batch (one ask at a time, shared by every lane).
 * Stops when a batch comes back empty; the first failure stops every lane from taking more and is thrown
 * once all lanes are done, so nothing of the run is still working when it returns. Returns how many ran.
 */
export async function inLanes<T>(
  take: () => Promise<T[]>,
  work: (item: T) => Promise<void>,
  concurrency: number,
): Promise<number> {
  const buffer: T[] = [];
  let asking: Promise<boolean> | undefined;
  let exhausted = false;
  let failed = false;
  let done = 0;
  const refill = (): Promise<boolean> => {
    asking ??= take().then(
      (items) => {
        asking = undefined;
        buffer.push(...items);
        if (items.length === 0) exhausted = true;
        return items.length > 0;
      },
      (error: unknown) => {
        asking = undefined;
        throw error;
      },
    );
    return asking;
  };
  const outcomes = await Promise.allSettled(
    Array.from({ length: concurrency }, async () => {
      while (!failed) {
        const item = buffer.shift();
        if (item === undefined) {
          if (exhausted || !(await refill().catch(fail))) return;
          continue;
        }
        await work(item).catch(fail);
        done += 1;
      }
    }),
  );
  function fail(error: unknown): never {
    failed = true;
    throw error;
  }
  const failure = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failure) throw failure.reason;
  return done;
}
