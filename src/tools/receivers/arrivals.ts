/**
 * What a local receiver has taken in, in arrival order, and a wait for the first `n` of them with
 * a deadline (event-driven: a wait wakes on each arrival, never polls or sleeps).
 */
export class Arrivals<T> {
  readonly items: T[] = [];
  readonly #waiters = new Set<() => void>();

  push(item: T): void {
    this.items.push(item);
    for (const wake of this.#waiters) wake();
  }

  /** Resolves with the first `n` arrivals once they are in; rejects after `timeoutMs`. */
  waitFor(n: number, timeoutMs: number): Promise<T[]> {
    return new Promise((resolve, reject) => {
      const wake = (): void => {
        if (this.items.length < n) return;
        clearTimeout(timer);
        this.#waiters.delete(wake);
        resolve(this.items.slice(0, n));
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(wake);
        reject(new Error(`expected ${n} messages within ${timeoutMs} ms, got ${this.items.length}`));
      }, timeoutMs);
      this.#waiters.add(wake);
      wake();
    });
  }
}

/** How long a wait for messages lasts when the caller names no deadline. */
export const DEFAULT_WAIT_MS = 5_000;
