export interface BreakerSettings {
  /** Consecutive failed attempts (an error, a timeout or a non-2xx answer) that open the circuit. */
  failures: number;
  /** The first pause before a probe; each failed probe doubles it, up to maxPauseMs. */
  pauseMs: number;
  maxPauseMs: number;
}

/**
 * One destination's circuit breaker. Closed: deliveries flow. Open: the destination's deliveries stay in
 * the database until `reopenAt`, then one probe delivery is let through; its success closes the circuit,
 * its failure opens it again for twice as long.
 */
export class CircuitBreaker {
  state: 'closed' | 'open' | 'probing' = 'closed';
  /** While open: when the probe may go. */
  reopenAt = 0;
  #failures = 0;
  #opened = 0;
  readonly #settings: BreakerSettings;

  constructor(settings: BreakerSettings) {
    this.#settings = settings;
  }

  /** An attempt's outcome; true when it opened the circuit. */
  record(ok: boolean, now = Date.now()): boolean {
    if (ok) {
      this.close();
      return false;
    }
    if (this.state === 'open') return false; // an attempt sent before the circuit opened
    this.#failures += 1;
    if (this.state === 'closed' && this.#failures < this.#settings.failures) return false;
    this.#opened += 1;
    const pause = Math.min(this.#settings.maxPauseMs, this.#settings.pauseMs * 2 ** (this.#opened - 1));
    this.state = 'open';
    this.reopenAt = now + pause;
    return true;
  }

  /** Closed with no failure since the last success: nothing to remember. */
  get clear(): boolean {
    return this.state === 'closed' && this.#failures === 0;
  }

  probeDue(now = Date.now()): boolean {
    return this.state === 'open' && now >= this.reopenAt;
  }

  startProbe(): void {
    this.state = 'probing';
  }

  close(): void {
    this.state = 'closed';
    this.#failures = 0;
    this.#opened = 0;
  }
}
