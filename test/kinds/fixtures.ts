/**
 * One alert of every kind with every fact of its kind set: untrusted text facts hold hostile text
 * (markup, mentions, a bidi override), so each renderer's escaping is exercised on each kind's rows.
 * Typed per kind: a kind added to the model without a fixture here fails to compile.
 */
import type { AlertFactsByKind, AlertKind, AlertOf } from '../../src/model/alert.ts';

export const HOSTILE =
  '<script>alert(1)</script> @everyone @here <!here> <!channel> <@U123> **bold** [click me](https://evil.example/phish) <b>x</b> <i>hi</i> \u202Eexe.txt';

const T = Date.UTC(2026, 10, 21, 14, 0);
const book = {
  asin: 'B0CJ4XQ2ZK',
  marketplace: 'US',
  bookTitle: `Book ${HOSTILE}`,
  author: `Author ${HOSTILE}`,
};
const low = {
  lowPoint: 4_100,
  lowPointUnranked: false,
  firedAt: T - 5 * 3_600_000,
  downForMs: 5 * 3_600_000,
};
const keyword = {
  ...book,
  ...low,
  keyword: `keyword ${HOSTILE}`,
  before: 4,
  after: 19,
  positionsLost: 15,
  percentWorse: 375,
  unranked: false,
  trigger: 'positions,top_n',
  topN: 10,
  repeat: 0,
  hour: '2026-11-21T13:00:00.000Z',
  unreadableHours: 0,
};
const bsrRank = {
  ...book,
  ...low,
  category: `Category ${HOSTILE}`,
  before: 1_200,
  after: 9_800,
  ratio: 8.2,
  rankChange: 8_600,
  baselineHours: 24,
  repeat: 0,
};
const bsrRemoval = {
  ...book,
  category: `Category ${HOSTILE}`,
  before: 1_200,
  after: null,
  removedAt: T - 3_600_000,
  downForMs: 3_600_000,
  repeat: 0,
};
const review = {
  ...book,
  campaignId: 'camp-1',
  reviewId: 'r-1',
  platform: 'goodreads',
  rating: 4,
  reviewer: `Reader ${HOSTILE}`,
  reviewTitle: `Title ${HOSTILE}`,
  body: `Body ${HOSTILE}\nsecond line`,
  url: 'https://www.goodreads.com/review/show/1',
  publishedAt: T - 86_400_000,
  lowStar: false,
  removedAt: T - 3_600_000,
};
const comp = {
  ...book,
  compAsin: 'B0COMP0001',
  compTitle: `Comp ${HOSTILE}`,
  bookBsr: 1_000,
  compBsr: 800,
  ratio: 0.8,
  margin: 0.1,
  repeat: 0,
};
const sentiment = {
  ...book,
  measure: 'rating',
  before: 4.4,
  after: 3.9,
  change: -0.5,
  threshold: 0.2,
  reviewCount: 120,
  repeat: 0,
};
const sales = { asin: 'B0CJ4XQ2ZK', marketplace: 'US', date: '2026-11-20', provisional: true };
const royalty = {
  ...sales,
  currency: 'USD',
  royalties: 1_234,
  units: 7,
  dayBefore: 5_000,
  dayBeforeChangePct: -75,
  trailingAverage: 4_800,
  trailingChangePct: -74,
  trailingDaysUsed: 7,
  comparedWith: 'either',
};
const revision = {
  ...sales,
  unitsBefore: 7,
  unitsAfter: 9,
  unitsDelta: 2,
  royaltiesBefore: 1_234,
  royaltiesAfter: 1_500,
  royaltiesDelta: 266,
  royaltiesCurrency: 'USD',
  adSpendBefore: 300,
  adSpendAfter: 350,
  adSpendDelta: 50,
  adSpendCurrency: 'USD',
};
const failing = {
  targetId: `book/${HOSTILE}`,
  failures: 3,
  since: T - 3_600_000,
  status: 'error',
  lastError: `error ${HOSTILE}`,
  drift: `drift ${HOSTILE}`,
  pauseReason: `reason ${HOSTILE}`,
  pausedUntil: T + 3_600_000,
};
const recovered = {
  targetId: `book/${HOSTILE}`,
  failedPolls: 3,
  since: T - 3_600_000,
  downForMs: 3_600_000,
  pauseReason: `reason ${HOSTILE}`,
};

export const FACTS: { [K in AlertKind]: AlertFactsByKind[K] } = {
  keyword_rank_drop: keyword,
  keyword_rank_recovered: keyword,
  bsr_worsened: bsrRank,
  bsr_recovered: bsrRank,
  bsr_removed: bsrRemoval,
  bsr_restored: bsrRemoval,
  review_new: review,
  review_removed: review,
  review_restored: review,
  review_count_down: { ...book, before: 120, after: 118, delta: -2, averageRating: 4.3 },
  comp_overtook: comp,
  comp_fell_behind: comp,
  sentiment_shift: sentiment,
  sentiment_recovered: sentiment,
  royalty_change: royalty,
  sales_revision: revision,
  source_health: failing,
  source_recovered: recovered,
  state_lost: { previousEpoch: `before ${HOSTILE}`, epoch: `now ${HOSTILE}`, detectedAt: T },
  redis_writable: { since: T - 30_000, fullForMs: 30_000, refused: 76_015 },
};

export function alertOfKind<K extends AlertKind>(kind: K): AlertOf<K> {
  return {
    fingerprint: `fp-${kind}`,
    workspace: 'acme',
    ruleId: `rule-${kind}`,
    kind,
    severity: 'warning',
    status:
      kind.endsWith('recovered') || kind.endsWith('restored') || kind === 'comp_fell_behind'
        ? 'resolved'
        : 'firing',
    subject: { asin: 'B0CJ4XQ2ZK', marketplace: 'US' },
    title: `Title of ${kind} ${HOSTILE}`,
    facts: FACTS[kind] as AlertFactsByKind[K],
    series: [40, 30, 20, 19],
    observedAt: T,
  } as AlertOf<K>;
}
