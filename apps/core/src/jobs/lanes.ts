/**
 * Runs `step` in `count` lanes at once, each lane repeating it until it returns false. The first failure
 * stops every lane from starting another step and is thrown once all lanes are done, so nothing of the run
 * is still working when it returns (a lane still working must not overlap the next run).
 */
export async function runLanes(count: number, step: () => Promise<boolean>): Promise<void> {
  let failed = false;
  const outcomes = await Promise.allSettled(
    Array.from({ length: count }, async () => {
      while (!failed) {
        const more = await step().catch((error: unknown) => {
          failed = true;
          throw error;
        });
        if (!more) return;
      }
    }),
  );
  const failure = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failure) throw failure.reason;
}

/**
 * Runs `work` over items taken in batches from `take`, with at most `concurrency` items in flight: one lane
 * per slot; a lane whose buffer is empty asks for the next batch (one ask at a time, shared by every lane).
 * Stops when a batch comes back empty; failures stop the run as runLanes's do. Returns how many ran.
 */
export async function inLanes<T>(
  take: () => Promise<T[]>,
  work: (item: T) => Promise<void>,
  concurrency: number,
): Promise<number> {
  const buffer: T[] = [];
  let asking: Promise<boolean> | undefined;
  let exhausted = false;
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
  await runLanes(concurrency, async () => {
    const item = buffer.shift();
    if (item === undefined) return !exhausted && refill();
    await work(item);
    done += 1;
    return true;
  });
  return done;
}
