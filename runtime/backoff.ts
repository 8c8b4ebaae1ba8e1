// Exponential backoff for reconnects and restarts: a first delay that doubles up to a cap, reset by the
// caller once what it retries has held for a while, so one old failure does not slow the next recovery.
export class Backoff {
  private failures = 0;

  constructor(
    private readonly firstMs = 500,
    private readonly maxMs = 15_000,
  ) {}

  /** The delay before the next try; each call doubles the following one, up to the cap. */
  next(): number {
    const delay = Math.min(this.firstMs * 2 ** Math.min(this.failures, 30), this.maxMs);
    this.failures += 1;
    return delay;
  }

  reset(): void {
    this.failures = 0;
  }
}
