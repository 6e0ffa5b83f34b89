/**
 * What the screenshots show: alerts as the rules build them (titles, facts and series as in
 * src/rules) and digest inputs of one Berlin workspace with three titles.
 */

import type { DigestInputs } from '../src/digest/types.ts';
import type { Alert } from '../src/model/alert.ts';
import type { ReviewDetail } from '../src/model/observation.ts';
import { toMinor } from '../src/util/money.ts';

const T = Date.UTC(2026, 10, 25, 13, 5);
const ASIN = 'B0CJ4XQ2ZK';
const TITLE = 'The Lighthouse Keeper’s Secret';

export function sampleAlerts(): Alert[] {
  const base = { workspace: 'acme', status: 'firing' as const, observedAt: T };
  return [
    {
      ...base,
      fingerprint: 'docs-bsr',
      ruleId: 'bsr-watch',
      kind: 'bsr_worsened',
      severity: 'warning',
      subject: { asin: ASIN, marketplace: 'DE' },
      title: `“${TITLE}” best-seller rank worsened: #1,834 → #6,120 (×3.3 worse than its 24h median) (${ASIN}, DE)`,
      facts: {
        asin: ASIN,
        marketplace: 'DE',
        bookTitle: TITLE,
        category: 'Kindle-Shop',
        before: 1834,
        after: 6120,
        ratio: 6120 / 1834,
        rankChange: 6120 - 1834,
        baselineHours: 24,
      },
      series: [1790, 1820, 1801, 1850, 1834, 2210, 3100, 4480, 6120],
      episode: T - 3 * 3_600_000,
    },
    {
      ...base,
      fingerprint: 'docs-keyword',
      ruleId: 'keywords',
      kind: 'keyword_rank_drop',
      severity: 'warning',
      subject: { asin: ASIN, marketplace: 'DE', keyword: 'cozy mystery' },
      title: `“cozy mystery” fell from #4 to #19 for “${TITLE}” (${ASIN}, DE)`,
      facts: {
        keyword: 'cozy mystery',
        asin: ASIN,
        marketplace: 'DE',
        bookTitle: TITLE,
        author: 'M. A. Winter',
        before: 4,
        after: 19,
        positionsLost: 15,
        percentWorse: 375,
        unranked: false,
        trigger: 'positions,top_n',
        topN: 10,
        repeat: 0,
        firedAt: null,
      },
      series: [4, 4, 5, 4, 9, 14, 19],
      episode: T - 3_600_000,
    },
    {
      ...base,
      fingerprint: 'docs-keyword-recovered',
      ruleId: 'keywords',
      kind: 'keyword_rank_recovered',
      severity: 'warning',
      status: 'resolved',
      subject: { asin: ASIN, marketplace: 'DE', keyword: 'lighthouse mystery' },
      title: `“lighthouse mystery” is back at #3 for “${TITLE}” (${ASIN}, DE) — was down to #27 for 5 h 20 min`,
      facts: {
        keyword: 'lighthouse mystery',
        asin: ASIN,
        marketplace: 'DE',
        bookTitle: TITLE,
        author: 'M. A. Winter',
        before: 2,
        after: 3,
        positionsLost: 1,
        percentWorse: 50,
        unranked: false,
        trigger: null,
        topN: 10,
        repeat: 0,
        firedAt: T - (5 * 60 + 20) * 60_000,
        lowPoint: 27,
        lowPointUnranked: false,
        downForMs: (5 * 60 + 20) * 60_000,
      },
      series: [2, 2, 9, 18, 27, 21, 12, 3],
      episode: T - 6 * 3_600_000,
    },
    {
      ...base,
      fingerprint: 'docs-review',
      ruleId: 'reviews',
      kind: 'review_new',
      severity: 'info',
      subject: { asin: ASIN, campaignId: 'arc-autumn', reviewId: 'r-1' },
      title: `New 5★ Goodreads review of “${TITLE}” (${ASIN}) (campaign “Autumn ARC”)`,
      facts: {
        campaignId: 'arc-autumn',
        campaignName: 'Autumn ARC',
        asin: ASIN,
        reviewId: 'r-1',
        bookTitle: TITLE,
        author: 'M. A. Winter',
        platform: 'goodreads',
        rating: 5,
        reviewer: 'Ann Reader',
        reviewTitle: 'Could not put it down',
        body: 'A cosy, clever mystery with a lighthouse I now want to visit.',
        url: 'https://www.goodreads.com/review/show/1',
        publishedAt: T - 40 * 60_000,
        lowStar: false,
      },
    },
  ];
}

const DAY = '2026-11-24';
const money = (amount: string, currency: string) => ({ minor: toMinor(amount, currency), currency });

function review(id: string, rating: number, hoursAgo: number): ReviewDetail {
  return {
    reviewId: id,
    asin: ASIN,
    platform: 'amazon',
    rating,
    publishedAt: Date.UTC(2026, 10, 24, 12) - hoursAgo * 3_600_000,
    title: null,
    body: '',
    reviewer: '',
    url: null,
  };
}

export function digestInputs(timeZone: string): DigestInputs {
  const titles: [asin: string, title: string, base: number][] = [
    [ASIN, TITLE, 42],
    ['B0DK7Q2M4P', 'Tides of Glass', 18],
    ['B0FHX92LQA', 'Murder at the Harbour Inn', 9],
  ];
  const rows = titles.flatMap(([asin, , base], t) =>
    Array.from({ length: 8 }, (_, i) => {
      const date = `2026-11-${String(17 + i).padStart(2, '0')}`;
      const units = Math.max(1, Math.round(base * (0.8 + ((i * 7 + t * 3) % 5) / 10)));
      return {
        asin,
        marketplace: 'DE',
        date,
        units,
        royalties: money((units * 2.45).toFixed(2), 'EUR'),
        adSpend: money((units * 0.61).toFixed(2), 'EUR'),
      };
    }),
  );
  const hourly = (start: number, ranks: number[]) =>
    ranks.map((rank, i) => ({ at: start + i * 3_600_000, rank }));
  const books = titles.map(([asin, title, base]) => ({
    kind: 'book' as const,
    observedAt: Date.UTC(2026, 10, 24, 23),
    asin,
    marketplace: 'DE',
    title,
    author: 'M. A. Winter',
    bsr: Math.round(60_000 / base),
    bsrCategory: 'Kindle-Shop',
    bsrHistory: hourly(
      Date.UTC(2026, 10, 22, 23),
      Array.from({ length: 48 }, (_, i) =>
        Math.round((60_000 / base) * (1 + (i < 24 ? 0.6 : 0) + (i % 5) / 20)),
      ),
    ),
    reviewCount: null,
    averageRating: null,
  }));
  return {
    workspace: 'acme',
    timeZone,
    day: DAY,
    nowMs: Date.UTC(2026, 10, 25, 7),
    sales: { status: 'ok', rows, from: '2026-11-17', to: DAY, requests: 1 },
    expectedPairs: titles.map(([asin]) => ({ asin, marketplace: 'DE' })),
    books,
    keywords: [],
    campaigns: [
      {
        campaignId: 'arc-autumn',
        campaignName: 'Autumn ARC',
        invites: 40,
        reviews: {
          kind: 'reviews',
          observedAt: 0,
          campaignId: 'arc-autumn',
          reviews: [review('r1', 5, 3), review('r2', 4, 8)],
        },
      },
    ],
    previous: null,
  };
}
