// Async semaphore for every concurrency knob of a run (phase width, improver sessions, domain
// workers). It only bounds how many tasks run at once and keeps results in the caller's order;
// it never drops, reorders or retries work, and never swallows an error.

import { Harness2Error } from "./errors.ts";

/** A width that is not a number, or a fractional one. */
export class LimitError extends Harness2Error {
  constructor(readonly limit: number) {
    super(`a concurrency limit must be an integer (≤ 0 means unlimited), got ${limit}`);
  }
}

/**
 * A counting semaphore. `limit ≤ 0` means unlimited (as the original's proposer semaphore).
 * Waiters are served first come, first served.
 */
export class Limiter {
  readonly limit: number;
  #active = 0;
  #peak = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit)) throw new LimitError(limit);
    this.limit = limit;
  }

  /** Tasks running right now. */
  get active(): number {
    return this.#active;
  }

  /** The most tasks that ever ran at once through this limiter. */
  get peak(): number {
    return this.#peak;
  }

  /** Tasks waiting for a slot. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Runs `fn` once a slot is free and releases the slot however `fn` ends. */
  async run<T>(fn: () => Promise<T> | T): Promise<T> {
    await this.#acquire();
    try {
      return await fn();
    } finally {
      this.#release();
    }
  }

  #acquire(): Promise<void> {
    if (this.limit <= 0 || this.#active < this.limit) {
      this.#take();
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      this.#waiting.push(() => {
        this.#take();
        resolve();
      });
    });
  }

  #take(): void {
    this.#active++;
    if (this.#active > this.#peak) this.#peak = this.#active;
  }

  #release(): void {
    this.#active--;
    const next = this.#waiting.shift();
    if (next) next();
  }
}

/**
 * Runs `fn` over `items` with at most `width` at once (at least 1, at most `items.length`) and
 * returns the results in the order of `items`. It is a barrier: it returns only after every task
 * settled, so the siblings of a failed task still finish; then the first failure in item order is
 * rethrown unchanged (as the original's thread pool did when its results were collected).
 */
export async function mapLimited<I, O>(
  items: readonly I[],
  width: number,
  fn: (item: I, index: number) => Promise<O>,
): Promise<O[]> {
  if (!Number.isInteger(width)) throw new LimitError(width);
  if (items.length === 0) return [];
  const limiter = new Limiter(Math.max(1, Math.min(items.length, width)));
  const settled = await Promise.allSettled(items.map((it, i) => limiter.run(() => fn(it, i))));
  const failed = settled.find((s) => s.status === "rejected");
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<O>).value);
}
