import type { EntityManager } from '@mikro-orm/postgresql';
import { type Outcome, renewLeases, writeOutcomes } from './delivery-leases.ts';

/**
 * What a core's delivery workers write back: each delivery's outcome, in batches (one write at a time, the
 * next batch gathering meanwhile), and the lease of every row still held, renewed. Writes run one after
 * another, so a renewal never overwrites a newer outcome's next try.
 */
export class DeliveryWriter {
  /** Rows claimed by this core and not yet written back: their leases are renewed. */
  readonly #held = new Set<number>();
  #outcomes: Outcome[] = [];
  #writing: Promise<void> = Promise.resolve();
  #writeScheduled = false;
  readonly #em: () => EntityManager;
  readonly #onError: (error: unknown) => void;

  constructor(em: () => EntityManager, onError: (error: unknown) => void) {
    this.#em = em;
    this.#onError = onError;
  }

  /** How many claimed rows have no outcome written yet. */
  get held(): number {
    return this.#held.size;
  }

  hold(ids: readonly number[]): void {
    for (const id of ids) this.#held.add(id);
  }

  record(outcome: Outcome): void {
    this.#held.delete(outcome.id);
    this.#outcomes.push(outcome);
    if (this.#writeScheduled) return;
    this.#writeScheduled = true;
    void this.#serially(async () => {
      this.#writeScheduled = false;
      const batch = this.#outcomes;
      this.#outcomes = [];
      await writeOutcomes(this.#em(), batch);
    });
  }

  renewLeases(leaseMs: number): Promise<void> {
    return this.#serially(() => renewLeases(this.#em(), [...this.#held], leaseMs));
  }

  /** Resolves once everything recorded so far is written (or has failed and been reported). */
  async flush(): Promise<void> {
    await this.#serially(async () => {});
    await this.#writing;
  }

  #serially(write: () => Promise<void>): Promise<void> {
    this.#writing = this.#writing.then(write).catch(this.#onError);
    return this.#writing;
  }
}
