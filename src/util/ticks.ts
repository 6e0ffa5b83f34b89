import { DAY_MS, HOUR_MS } from './time-units.ts';
/**
 * Axis ticks people read: round numbers (1, 2 or 5 × 10^k apart) on a linear scale, and 1-2-5
 * steps per decade on a log scale; time ticks on whole hours, days, weeks or months.
 */

/** About `count` round ticks covering [lo, hi]; the domain is widened to the outer ticks. */
export function linearTicks(lo: number, hi: number, count = 5): { ticks: number[]; lo: number; hi: number } {
  if (!(hi > lo)) return linearTicks(lo - 1, lo + 1, count);
  const raw = (hi - lo) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const first = Math.floor(lo / step) * step;
  const last = Math.ceil(hi / step) * step;
  const ticks: number[] = [];
  for (let v = first; v <= last + step / 2; v += step) ticks.push(Number(v.toPrecision(12)));
  return { ticks, lo: first, hi: last };
}

/** 1-2-5 ticks per decade covering [lo, hi] (both ≥ 1); fewer per decade when many decades. */
export function logTicks(lo: number, hi: number): { ticks: number[]; lo: number; hi: number } {
  const from = Math.floor(Math.log10(Math.max(1, lo)));
  const to = Math.ceil(Math.log10(Math.max(1, hi)));
  const steps = to - from > 3 ? [1] : to - from > 2 ? [1, 3] : [1, 2, 5];
  const all: number[] = [];
  for (let e = from; e <= to; e++) for (const m of steps) all.push(m * 10 ** e);
  const below = all.filter((v) => v <= lo).at(-1) ?? 1;
  const above = all.find((v) => v >= hi) ?? hi;
  return { ticks: all.filter((v) => v >= below && v <= above), lo: below, hi: above };
}

const TIME_STEPS = [
  HOUR_MS,
  3 * HOUR_MS,
  6 * HOUR_MS,
  12 * HOUR_MS,
  DAY_MS,
  2 * DAY_MS,
  7 * DAY_MS,
  14 * DAY_MS,
];

/** Ticks on whole UTC hours, days or weeks, or the first of months, about `count` of them in [from, to]. */
export function timeTicks(fromMs: number, toMs: number, count = 6): number[] {
  const span = Math.max(1, toMs - fromMs);
  const step = TIME_STEPS.find((s) => span / s <= count);
  const ticks: number[] = [];
  if (step !== undefined) {
    for (let t = Math.ceil(fromMs / step) * step; t <= toMs; t += step) ticks.push(t);
    return ticks;
  }
  const months = Math.max(1, [1, 2, 3, 6, 12, 24].find((m) => span / (m * 30 * DAY_MS) <= count) ?? 24);
  const start = new Date(fromMs);
  for (let m = start.getUTCMonth() + 1; ; m += 1) {
    const t = Date.UTC(start.getUTCFullYear(), m, 1);
    if (t > toMs) break;
    if (new Date(t).getUTCMonth() % months === 0) ticks.push(t);
  }
  return ticks;
}
