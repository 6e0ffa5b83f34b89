import type { Alert } from '../../src/model/alert.ts';
import type {
  BookObservation,
  KeywordsObservation,
  Observation,
  ReviewDetail,
  ReviewsObservation,
  SalesDay,
  SalesObservation,
} from '../../src/model/observation.ts';
import { decodeRuleState, encodeRuleState } from '../../src/rule-state/index.ts';
import { type RuleConfig, type RuleConfigInput, ruleSchema } from '../../src/rules/config.ts';
import { evaluate, type RuleState } from '../../src/rules/engine.ts';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
/** 2026-11-21T00:00:00Z */
export const T0 = Date.UTC(2026, 10, 21);
export const ASIN = 'B0CJ4XQ2ZK';

export function rule(input: RuleConfigInput): RuleConfig {
  return ruleSchema.parse(input);
}

export function keywords(at: number, ranks: Record<string, number | null>): KeywordsObservation {
  return {
    kind: 'keywords',
    observedAt: at,
    asin: ASIN,
    marketplace: 'US',
    ranks: Object.entries(ranks).map(([keyword, rank]) => ({ keyword, rank })),
  };
}

/** A book whose hourly BSR history holds `history` (oldest first, last point one hour before `at`). */
export function book(
  at: number,
  bsr: number | null,
  history: (number | null)[] = [],
  extra: Partial<BookObservation> = {},
): BookObservation {
  return {
    kind: 'book',
    observedAt: at,
    asin: ASIN,
    marketplace: 'US',
    title: 'The Teapot Murders',
    author: 'A. Author',
    bsr,
    bsrCategory: 'Kindle Store',
    bsrHistory: history.map((rank, i) => ({ at: at - (history.length - i) * HOUR, rank })),
    reviewCount: 100,
    averageRating: 4.4,
    ...extra,
  };
}

export function review(id: string, rating: number, extra: Partial<ReviewDetail> = {}): ReviewDetail {
  return {
    reviewId: id,
    asin: ASIN,
    platform: 'amazon',
    rating,
    publishedAt: T0,
    title: `Review ${id}`,
    body: `Body of ${id}`,
    reviewer: `reader-${id}`,
    url: null,
    ...extra,
  };
}

export function reviews(at: number, list: ReviewDetail[]): ReviewsObservation {
  return { kind: 'reviews', observedAt: at, campaignId: 'camp-1', reviews: list };
}

export function day(
  date: string,
  royalties: number,
  extra: Partial<SalesDay> = {},
  currency = 'USD',
): SalesDay {
  return {
    asin: ASIN,
    marketplace: 'US',
    date,
    units: 10,
    royalties: { minor: royalties, currency },
    adSpend: { minor: 1000, currency },
    ...extra,
  };
}

export function sales(at: number, days: SalesDay[]): SalesObservation {
  return { kind: 'sales', observedAt: at, marketplace: null, days };
}

/** `2026-11-01` plus n days. */
export function date(n: number): string {
  return new Date(Date.UTC(2026, 10, 1 + n)).toISOString().slice(0, 10);
}

/**
 * Feeds observations in order like the poller would (each one's time is the poll's time, the
 * previous one is `prev`) and returns the alerts of each poll and the final state. `stored` passes
 * each poll's state through the bytes the snapshot record keeps, as the poller does.
 */
export function run(
  rules: RuleConfig[],
  observations: Observation[],
  initial?: RuleState,
  options: { stored?: boolean } = {},
) {
  let prev: Observation | undefined;
  let state = initial;
  const perPoll: Alert[][] = [];
  for (const next of observations) {
    const result = evaluate(
      { workspace: 'ws', targetId: 't1', nowMs: next.observedAt },
      rules,
      prev,
      next,
      state,
    );
    perPoll.push(result.alerts);
    state = options.stored ? decodeRuleState(encodeRuleState(result.state, next), next) : result.state;
    prev = next;
  }
  return { perPoll, alerts: perPoll.flat(), state, last: prev };
}

export const kinds = (alerts: Alert[]): string[] => alerts.map((a) => a.kind);
