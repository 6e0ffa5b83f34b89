import { describe, expect, it } from 'vitest';
import { digestCharts } from '../../src/digest/charts.ts';
import { computeFigures, lastDigestOf } from '../../src/digest/figures.ts';
import { QUIET_LINE } from '../../src/digest/format.ts';
import { renderDigest } from '../../src/digest/template.ts';
import {
  A,
  B,
  book,
  C,
  campaign,
  HOUR,
  hourly,
  inputs,
  keywordObs,
  lastDigest,
  review,
  row,
} from './fixtures.ts';

const DAY = '2026-11-21';
const NOW = Date.UTC(2026, 10, 22, 7);
const DAY_BEFORE_START = Date.UTC(2026, 10, 20);

function twoDays(before: number, after: number): (number | null)[] {
  return [...Array(24).fill(before), ...Array(24).fill(after)];
}

describe('digest rank movers', () => {
  it('compares BSR medians on a log scale: #500,000 → #300,000 moves as much as #50 → #30', () => {
    const books = [
      book(A, 'US', hourly(DAY_BEFORE_START, twoDays(500_000, 300_000))),
      book(B, 'US', hourly(DAY_BEFORE_START, twoDays(50, 30))),
      book(C, 'US', hourly(DAY_BEFORE_START, twoDays(1_000, 900))),
      book('B0DDDDDDDD', 'US', hourly(DAY_BEFORE_START, twoDays(100, 200))),
    ];
    const figures = computeFigures(inputs({ day: DAY, nowMs: NOW, books }));
    const byAsin = new Map(figures.bsr.books.map((l) => [l.asin, l]));
    expect(byAsin.get(A)?.change).toBeCloseTo(Math.log10(5 / 3), 12);
    expect(byAsin.get(B)?.change).toBeCloseTo(byAsin.get(A)?.change ?? 0, 12);
    expect(byAsin.get(C)?.change).toBeCloseTo(Math.log10(1000 / 900), 12);
    expect(figures.bsr.movers.map((l) => [l.asin, l.dayBeforeMedian, l.yesterdayMedian])).toEqual([
      ['B0DDDDDDDD', 100, 200],
      [A, 500_000, 300_000],
      [B, 50, 30],
    ]);
    const { text } = renderDigest(figures, digestCharts(figures));
    expect(text).toContain('“Title of B0AAAAAAAA” (B0AAAAAAAA, US): #500,000 → #300,000 (×1.67 better)');
    expect(text).toContain('“Title of B0DDDDDDDD” (B0DDDDDDDD, US): #100 → #200 (×2.00 worse)');
    expect(figures.quiet).toBe(false);
  });

  it('takes the local days of the time zone: 2026-10-25 in Berlin has 25 hourly points', () => {
    // 24 points of Sat 24 Oct (CEST, from 22:00Z) and 25 of Sun 25 Oct (clocks went back at 01:00Z).
    const start = Date.UTC(2026, 9, 23, 22);
    const ranks = [...Array(24).fill(2_000), ...Array(25).fill(1_000), 5];
    const figures = computeFigures(
      inputs({
        day: '2026-10-25',
        nowMs: Date.UTC(2026, 9, 26, 7),
        timeZone: 'Europe/Berlin',
        books: [book(A, 'US', hourly(start, ranks))],
      }),
    );
    const line = figures.bsr.books[0];
    expect([line?.pointsDayBefore, line?.pointsYesterday]).toEqual([24, 25]);
    expect([line?.dayBeforeMedian, line?.yesterdayMedian]).toEqual([2_000, 1_000]);
    expect(line?.history).toHaveLength(49);
    expect(figures.dayHours).toBe(25);
    expect(renderDigest(figures, digestCharts(figures)).text).toContain(
      '(Europe/Berlin) — a 25-hour day: the clocks went back',
    );
  });

  it('needs enough points for a median (Amazon skips updates; ranks vanish)', () => {
    const ranks = [...Array(24).fill(100), 300, null, null, 300, 300, ...Array(19).fill(null)];
    const figures = computeFigures(
      inputs({ day: DAY, nowMs: NOW, books: [book(A, 'US', hourly(DAY_BEFORE_START, ranks))] }),
    );
    expect(figures.bsr.books[0]?.yesterdayMedian).toBeNull();
    expect(figures.bsr.books[0]?.pointsYesterday).toBe(3);
    expect(figures.bsr.movers).toEqual([]);
  });

  it('compares keyword ranks with the ranks the last digest stored', () => {
    const previous = lastDigest({
      keywordRanks: Object.entries({ k1: 50, k2: 3, k3: null, k4: 10, k5: 1 }).map(([keyword, rank]) => ({
        asin: A,
        marketplace: 'US',
        keyword,
        rank,
      })),
    });
    const keywords = [keywordObs(A, { k1: 30, k2: 4, k3: 7, k4: null, k5: 3, k6: 5 })];
    const figures = computeFigures(inputs({ day: DAY, nowMs: NOW, keywords, previous }));
    const brief = (list: { keyword: string; before: number | null; after: number | null }[]) =>
      list.map((m) => [m.keyword, m.before, m.after]);
    expect(brief(figures.keywords.movers)).toEqual([
      ['k5', 1, 3],
      ['k1', 50, 30],
    ]);
    expect(brief(figures.keywords.entered)).toEqual([['k3', null, 7]]);
    expect(brief(figures.keywords.left)).toEqual([['k4', 10, null]]);
    expect(figures.keywords.tracked).toBe(6);
    const first = computeFigures(inputs({ day: DAY, nowMs: NOW, keywords }));
    expect(first.keywords.baseline).toBe(true);
    expect(first.keywords.movers).toEqual([]);
    expect(lastDigestOf(inputs({ day: DAY, nowMs: NOW, keywords })).keywordRanks).toHaveLength(6);
  });
});

describe('digest reviews and ARC campaigns', () => {
  it('never shows a rate over 100% ("433%"): more reviews than invites on record give no rate and say why', () => {
    const reviews = Array.from({ length: 13 }, (_, i) => review(`r${i}`, A, 4, NOW - i * HOUR));
    const campaigns = [{ campaignId: 'arc_one', invites: 3, reviews: campaign('arc_one', reviews) }];
    const figures = computeFigures(inputs({ day: DAY, nowMs: NOW, campaigns }));
    expect(figures.arc[0]).toMatchObject({ invites: 3, reviews: 13, ratePct: null, invitesShort: true });
    const { text, html } = renderDigest(figures, digestCharts(figures));
    for (const part of [text, html]) {
      expect(part).not.toContain('433%');
      expect(part).toContain('invited outside shelfwatch');
    }
  });

  it('names a campaign by its configured name and its book by the title the poller cached', () => {
    const reviews = [review('r1', A, 5, NOW - 2 * HOUR)];
    const campaigns = [
      {
        campaignId: 'arc_one',
        campaignName: 'Spring ARC',
        bookTitles: new Map([[A, 'Tide Lines']]),
        invites: 10,
        reviews: campaign('arc_one', reviews),
      },
    ];
    const previous = lastDigest({ reviewIds: [] });
    const figures = computeFigures(inputs({ day: DAY, nowMs: NOW, campaigns, previous }));
    expect(figures.arc[0]).toMatchObject({ campaignName: 'Spring ARC', title: 'Tide Lines', asin: A });
    const { text, html } = renderDigest(figures, digestCharts(figures));
    expect(text).toContain(`Spring ARC (“Tide Lines”, ${A}): 10 readers invited`);
    expect(text).toContain(`“Tide Lines” (${A}), Spring ARC,`);
    expect(text).not.toContain('arc_one');
    expect(html).toContain('Spring ARC (“Tide Lines”, B0AAAAAAAA)');
  });

  it('counts reviews new since the last digest and their average rating', () => {
    const reviews = [
      review('r1', A, 5, NOW - 50 * HOUR),
      review('r2', A, 2, NOW - 40 * HOUR),
      review('r3', A, 5, NOW - 3 * HOUR),
      review('r4', A, 3, NOW - 2 * HOUR),
    ];
    const campaigns = [
      { campaignId: 'arc_one', invites: 10, reviews: campaign('arc_one', reviews) },
      { campaignId: 'arc_two', invites: null, reviews: null },
    ];
    const previous = lastDigest({ reviewIds: ['r1', 'r2'] });
    const figures = computeFigures(inputs({ day: DAY, nowMs: NOW, campaigns, previous }));
    expect(figures.reviews.items.map((r) => r.reviewId)).toEqual(['r4', 'r3']);
    expect(figures.reviews.averageRating).toBe(4);
    expect(figures.arc).toEqual([
      {
        campaignId: 'arc_one',
        asin: A,
        title: null,
        invites: 10,
        reviews: 4,
        averageRating: 3.75,
        ratePct: 40,
        invitesShort: false,
      },
      {
        campaignId: 'arc_two',
        asin: null,
        title: null,
        invites: null,
        reviews: null,
        averageRating: null,
        ratePct: null,
        invitesShort: false,
      },
    ]);
    const { text, subject } = renderDigest(figures, digestCharts(figures));
    expect(subject).toBe('Daily digest for acme — Sat 21 Nov: no sales data, 2 new reviews');
    expect(text).toContain('NEW REVIEWS since the last digest: 2, average 4.0★');
    expect(text).toContain('arc_one (B0AAAAAAAA): 10 readers invited, 4 reviews (40%), average 3.8★');
    expect(text).toContain('arc_two: invites not recorded, reviews: no data yet');
    // A campaign not polled this time keeps the ids the last digest knew.
    expect(lastDigestOf(inputs({ day: DAY, nowMs: NOW, campaigns, previous })).reviewIds.sort()).toEqual([
      'r1',
      'r2',
      'r3',
      'r4',
    ]);
  });

  it('for a first digest, counts the reviews published on the local digest day', () => {
    const day = Date.UTC(2026, 10, 21);
    const reviews = [
      review('r1', A, 4, day - 1),
      review('r2', A, 5, day),
      review('r3', A, 1, day + 24 * HOUR),
    ];
    const figures = computeFigures(
      inputs({
        day: DAY,
        nowMs: NOW,
        campaigns: [{ campaignId: 'arc', invites: 3, reviews: campaign('arc', reviews) }],
      }),
    );
    expect(figures.reviews.since).toBe('digest_day');
    expect(figures.reviews.items.map((r) => r.reviewId)).toEqual(['r2']);
  });
});

describe('all quiet', () => {
  it('says so when nothing moved, which also shows the worker is alive', () => {
    const dates = ['2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20', DAY];
    const rows = dates.map((date) => row(A, 'US', date, 2, '9.00'));
    const figures = computeFigures(
      inputs({
        day: DAY,
        nowMs: NOW,
        expectedPairs: [{ asin: A, marketplace: 'US' }],
        sales: { status: 'ok', rows, from: '2026-11-14', to: DAY, requests: 1 },
        books: [book(A, 'US', hourly(DAY_BEFORE_START, twoDays(1_000, 1_100)))],
        keywords: [keywordObs(A, { k1: 4 })],
        campaigns: [
          { campaignId: 'arc', invites: 5, reviews: campaign('arc', [review('r1', A, 5, NOW - 90 * HOUR)]) },
        ],
        previous: lastDigest({
          reviewIds: ['r1'],
          keywordRanks: [{ asin: A, marketplace: 'US', keyword: 'k1', rank: 4 }],
        }),
      }),
    );
    expect(figures.quiet).toBe(true);
    const { text, html, subject } = renderDigest(figures, digestCharts(figures));
    expect(text).toContain(QUIET_LINE);
    expect(html).toContain(
      'All quiet: no sales moves, no new reviews, no rank changes worth reporting — shelfwatch is running.',
    );
    expect(subject).toBe('Daily digest for acme — Sat 21 Nov: 9.00 USD royalties, no new reviews, all quiet');
    expect(text).toMatch(/9\.00 USD†? \(2 units\)/);
  });

  it('is not claimed when sales could not be fetched', () => {
    const figures = computeFigures(
      inputs({ day: DAY, nowMs: NOW, sales: { status: 'unavailable', reason: 'x' } }),
    );
    expect(figures.quiet).toBe(false);
    expect(renderDigest(figures, digestCharts(figures)).text).not.toContain('All quiet');
  });
});
