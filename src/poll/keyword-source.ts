import { HOUR_MS } from '../util/time-units.ts';
/**
 * Which source judges a book's keyword ranks: the hourly `/v1/rankings` series or per-book
 * snapshots of `/v1/books/{asin}/keywords`. Compared in requests a month *to judge every hour*,
 * because that is what the rules need: a snapshot sees only the hour it lands on, so it must poll
 * hourly (730 requests a month a book); one series request carries every hour since the last poll,
 * so it costs one request per poll at whatever cadence the budget allows, plus one snapshot a day to
 * discover a `{top: N}` selection (a keyword entering or leaving the top N).
 */
/** An average month: 365.25 × 24 / 12 hours. */
export const HOURS_PER_MONTH = 730.5;
/** How often a `{top: N}` book re-reads its top N from `/v1/books/{asin}/keywords` under the series source. */
export const TOP_N_DISCOVERY_MS = 24 * HOUR_MS;

export type KeywordSourceSetting = 'auto' | 'series' | 'snapshot';
export type KeywordSource = 'series' | 'snapshot';

export interface KeywordSourceCosts {
  /** Requests a month, one book and marketplace, to judge every hour by series at `cadenceMs`. */
  series: number;
  /** The same by hourly snapshots (the only way snapshots see every hour). */
  snapshot: number;
}

export function keywordSourceCosts(cadenceMs: number, topN: boolean): KeywordSourceCosts {
  const pollsPerMonth = (HOURS_PER_MONTH * HOUR_MS) / Math.max(cadenceMs, HOUR_MS);
  const discovery = topN ? (HOURS_PER_MONTH * HOUR_MS) / TOP_N_DISCOVERY_MS : 0;
  return { series: Math.round(pollsPerMonth + discovery), snapshot: Math.round(HOURS_PER_MONTH) };
}

/** The series where it is cheaper or equal at `cadenceMs`, unless the config forces one. */
export function chooseKeywordSource(
  setting: KeywordSourceSetting,
  cadenceMs: number,
  topN: boolean,
): KeywordSource {
  if (setting !== 'auto') return setting;
  // The series is hourly: only snapshots can be fresher than an hour (tests and demos poll in seconds).
  if (cadenceMs < HOUR_MS) return 'snapshot';
  const costs = keywordSourceCosts(cadenceMs, topN);
  return costs.series <= costs.snapshot ? 'series' : 'snapshot';
}

/** What one workspace polls, as the cadence estimate needs it (`targets.ts` figures, first guesses). */
export interface DemandTarget {
  /** Requests a poll (first guess). */
  cost: number;
  usefulCadenceMs: number;
  maxCadenceMs: number;
}

/**
 * The keywords cadence the budget allows, estimated from the config alone (the registry chooses a
 * source before any poll has taught the planner real costs): every target at its useful cadence,
 * stretched by one shared factor until the month's allowance holds them (the planner's rule with
 * weight 1), capped at the slowest keywords cadence.
 */
export function allowedKeywordCadenceMs(
  targets: readonly DemandTarget[],
  perMonth: number,
  reserveShare: number,
  keywords: { usefulCadenceMs: number; maxCadenceMs: number },
): number {
  const monthMs = HOURS_PER_MONTH * HOUR_MS;
  const demand = targets.reduce((sum, t) => sum + (t.cost * monthMs) / t.usefulCadenceMs, 0);
  const allowance = perMonth * (1 - reserveShare);
  const stretch = allowance > 0 ? Math.max(1, demand / allowance) : Number.POSITIVE_INFINITY;
  return Math.min(keywords.maxCadenceMs, keywords.usefulCadenceMs * stretch);
}
