/**
 * Timing helpers for a noisy, shared 2-core machine: contenders run in alternating rounds inside one
 * process and one run, and results are medians of rounds (or medians of per-round ratios), so a
 * spike from another engineer's test run slows one round of each contender, not one contender.
 */
import { performance } from 'node:perf_hooks';

export function median(xs: readonly number[]): number {
  return percentile(xs, 0.5);
}

/** Nearest-rank percentile (p in 0..1) of a copy of `xs`; NaN for an empty list. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[rank]!;
}

export function mean(xs: readonly number[]): number {
  return xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
}

export function sum(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

/** Spread of the rounds, to show how noisy a median is: (max − min) / median. */
export function spread(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  return (Math.max(...xs) - Math.min(...xs)) / median(xs);
}

export interface RoundsResult {
  /** Per contender: the time of each round, in the unit the caller measured (ms unless said). */
  samples: Record<string, number[]>;
  medians: Record<string, number>;
}

/**
 * Runs async contenders in alternating rounds. Each round runs every contender once; the order is
 * reversed every other round (ABBA), so neither always runs right after the other's garbage.
 * `measure` returns the value to record for that round (e.g. ms per item).
 */
export async function alternate(
  contenders: Record<string, (round: number) => Promise<number>>,
  rounds: number,
  hooks: {
    /** Untimed preparation before each round (fresh data, say). */
    beforeRound?: (round: number) => Promise<void> | void;
    onRound?: (round: number, values: Record<string, number>) => void;
  } = {},
): Promise<RoundsResult> {
  const names = Object.keys(contenders);
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let round = 0; round < rounds; round++) {
    await hooks.beforeRound?.(round);
    const order = round % 2 === 0 ? names : [...names].reverse();
    const values: Record<string, number> = {};
    for (const name of order) {
      const value = await contenders[name]!(round);
      samples[name]!.push(value);
      values[name] = value;
    }
    hooks.onRound?.(round, values);
  }
  const medians = Object.fromEntries(names.map((n) => [n, median(samples[n]!)]));
  return { samples, medians };
}

/** Median over rounds of `a[i] / b[i]`: the ratio measured side by side, round by round. */
export function medianRatio(a: readonly number[], b: readonly number[]): number {
  return median(a.map((x, i) => x / b[i]!));
}

/**
 * µs per call of synchronous functions, in alternating rounds of `iterations` calls each, after a
 * JIT warm-up. Returns the samples (µs per call, one per round) of each function.
 */
export function timeSync(
  fns: Record<string, () => unknown>,
  iterations: number,
  rounds: number,
  warmup = 50,
): RoundsResult {
  const names = Object.keys(fns);
  let sink = 0;
  for (const name of names) {
    for (let i = 0; i < warmup; i++) if (fns[name]!() === undefined) sink++;
  }
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order) {
      const fn = fns[name]!;
      const start = performance.now();
      for (let i = 0; i < iterations; i++) if (fn() === undefined) sink++;
      samples[name]!.push(((performance.now() - start) * 1000) / iterations);
    }
  }
  // Keeps the calls observable so they cannot be optimised away.
  if (sink === -1) console.log(sink);
  const medians = Object.fromEntries(names.map((n) => [n, median(samples[n]!)]));
  return { samples, medians };
}

/** The most events inside any half-open window of `windowMs` (times need not be sorted). */
export function busiestWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while (sorted[end]! - sorted[start]! >= windowMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}
