/**
 * Keepa-style figures of a rank series: the current rank, the average over the last 30, 90, 180
 * and 365 days (a mean of daily medians, so hourly and summarised days weigh the same), the best
 * and worst rank with their dates, and the rank drops (a rank at least 10% better than the point
 * before it: the sign of a sale on a best-seller rank). Drops are counted between hourly points
 * inside the hourly window and between daily medians before it, so older counts are lower bounds.
 */

import { DAY_MS } from '../util/time-units.ts';
import type { SeriesHistory } from './store.ts';

export const STAT_WINDOWS_DAYS = [30, 90, 180, 365] as const;
/** A drop: the rank improves by at least this share of the point before. */
const DROP_SHARE = 0.1;

export interface RankAt {
  rank: number;
  at: number;
}

export interface RankStats {
  current: RankAt | null;
  /** Mean of the daily medians over the window, by window in days; null without data. */
  averages: Record<(typeof STAT_WINDOWS_DAYS)[number], number | null>;
  best: RankAt | null;
  worst: RankAt | null;
  /** Rank drops in the last 30 and 90 days. */
  drops30: number;
  drops90: number;
}

function middle(sorted: readonly number[]): number | undefined {
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

export function rankStats(series: SeriesHistory | undefined, nowMs: number): RankStats {
  const summarised = new Map((series?.days ?? []).map((d) => [d.day, d]));
  const dailyMedian = new Map<number, number>();
  const hourly = new Map<number, number[]>();
  let best: RankAt | null = null;
  let worst: RankAt | null = null;
  const consider = (rank: number, at: number) => {
    if (best === null || rank < best.rank) best = { rank, at };
    if (worst === null || rank > worst.rank) worst = { rank, at };
  };
  let current: RankAt | null = null;
  let drops30 = 0;
  let drops90 = 0;
  let previous: number | null = null;
  for (const point of series?.points ?? []) {
    const day = Math.floor(point.at / DAY_MS) * DAY_MS;
    if (point.rank === null) continue;
    current = { rank: point.rank, at: point.at };
    if (previous !== null && point.rank <= previous * (1 - DROP_SHARE)) {
      if (point.at > nowMs - 30 * DAY_MS) drops30 += 1;
      if (point.at > nowMs - 90 * DAY_MS) drops90 += 1;
    }
    previous = point.rank;
    const summary = summarised.get(day);
    if (summary !== undefined) {
      if (summary.median !== null) dailyMedian.set(day, summary.median);
      if (summary.min !== null) consider(summary.min, day);
      if (summary.max !== null) consider(summary.max, day);
      continue;
    }
    consider(point.rank, point.at);
    const list = hourly.get(day);
    if (list === undefined) hourly.set(day, [point.rank]);
    else list.push(point.rank);
  }
  for (const [day, ranks] of hourly) {
    const m = middle(ranks.sort((a, b) => a - b));
    if (m !== undefined) dailyMedian.set(day, m);
  }
  const averages = Object.fromEntries(
    STAT_WINDOWS_DAYS.map((days) => {
      const values = [...dailyMedian].filter(([day]) => day > nowMs - days * DAY_MS).map(([, v]) => v);
      return [days, values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length];
    }),
  ) as RankStats['averages'];
  return { current, averages, best, worst, drops30, drops90 };
}
