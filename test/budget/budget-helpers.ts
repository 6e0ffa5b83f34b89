/** Helpers shared by the budget tests. */

/** The largest number of grants inside any half-open interval `[a, a + spanMs)`. */
export function maxGrantsInAnySpan(grantTimes: readonly number[], spanMs: number): number {
  const sorted = [...grantTimes].sort((a, b) => a - b);
  let worst = 0;
  let first = 0;
  for (let last = 0; last < sorted.length; last++) {
    while ((sorted[first] ?? 0) <= (sorted[last] ?? 0) - spanMs) first++;
    worst = Math.max(worst, last - first + 1);
  }
  return worst;
}

/**
 * An in-memory reference of the sliding window, to compare every decision of the Redis script
 * against, including the exact retry time.
 */
export class WindowModel {
  private grants: number[] = [];

  constructor(
    private readonly perMinute: number,
    private readonly windowMs: number,
  ) {}

  /** Returns null when granted, else the time at which `count` requests would fit. */
  acquire(nowMs: number, count: number): number | null {
    this.grants = this.grants.filter((t) => t > nowMs - this.windowMs);
    const excess = this.grants.length + count - this.perMinute;
    if (excess > 0) return (this.grants[excess - 1] ?? Number.NaN) + this.windowMs;
    for (let i = 0; i < count; i++) this.grants.push(nowMs);
    return null;
  }
}
