/** Reading a /v1/rankings answer: bad input fails or reads one way, never inventing a drop or a recovery. */
import { describe, expect, it } from 'vitest';
import type { RankingSeries } from '../../src/api/schemas.ts';
import { RankingSeriesError, readRankingSeries, type SeriesRequest } from '../../src/poll/rankings-read.ts';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-02T00:00:00Z');
const ASIN = 'B0CJ4XQ2ZK';
const request: SeriesRequest = {
  asin: ASIN,
  marketplace: 'US',
  keywords: ['cozy mystery', 'cat detective'],
  fromMs: T0,
  nowMs: T0 + 5 * HOUR + 600_000,
};

function series(keyword: string, ranks: (number | null)[], start = T0, asin = ASIN): RankingSeries {
  return {
    asin,
    keyword,
    marketplace: 'US',
    points: ranks.map((rank, i) => ({
      at: new Date(start + i * HOUR).toISOString().replace('.000', ''),
      rank,
    })),
  };
}

describe('readRankingSeries', () => {
  it('reads one observation per hour, in order, with every tracked keyword', () => {
    const reading = readRankingSeries(
      [series('cozy mystery', [3, 4, 40, 3, 3, 3]), series('cat detective', [9, 9, 9, 9, 9, 9])],
      request,
    );
    expect(reading.hours.map((h) => h.observedAt)).toEqual([0, 1, 2, 3, 4, 5].map((i) => T0 + i * HOUR));
    expect(reading.hours[2]?.ranks).toEqual([
      { keyword: 'cozy mystery', rank: 40 },
      { keyword: 'cat detective', rank: 9 },
    ]);
    expect(reading.unreadableHours).toBe(0);
  });

  it.each([
    [
      'points out of order',
      [series('cozy mystery', [3, 4]), { ...series('cat detective', [1, 2]) }].map((s, i) =>
        i === 1 ? { ...s, points: [...s.points].reverse() } : s,
      ),
    ],
    [
      'a duplicated hour',
      [
        {
          ...series('cozy mystery', [3]),
          points: [...series('x', [3, 3]).points.slice(0, 1), ...series('x', [3]).points],
        },
      ],
    ],
    ['a point in the future', [series('cozy mystery', [3, 3, 3, 3, 3, 3, 3])]],
    [
      'a gap inside a series',
      [
        {
          ...series('cozy mystery', [3, 3, 3]),
          points: series('x', [3, 3, 3]).points.filter((_, i) => i !== 1),
        },
      ],
    ],
    ['a keyword not asked for', [series('dog detective', [3])]],
    ['an ASIN not asked for', [series('cozy mystery', [3], T0, 'B000000000')]],
    ['series that disagree on their hours', [series('cozy mystery', [3, 3]), series('cat detective', [3])]],
    ['the same keyword twice', [series('cozy mystery', [3]), series('cozy mystery', [3])]],
    ['a point before the hours asked for', [series('cozy mystery', [3], T0 - HOUR)]],
  ])('fails on %s', (_what, items) => {
    expect(() => readRankingSeries(items as RankingSeries[], request)).toThrow(RankingSeriesError);
  });

  it('reads a tracked keyword without a series as unranked, and another marketplace as not this target', () => {
    const otherMarket = { ...series('cat detective', [1, 1]), marketplace: 'UK' as const };
    const reading = readRankingSeries([series('cozy mystery', [3, 3]), otherMarket], request);
    expect(reading.hours.map((h) => h.ranks[1])).toEqual([
      { keyword: 'cat detective', rank: null },
      { keyword: 'cat detective', rank: null },
    ]);
  });

  it('counts the first hours the answer no longer has as unreadable', () => {
    const reading = readRankingSeries([series('cozy mystery', [3, 3], T0 + 3 * HOUR)], request);
    expect(reading.unreadableHours).toBe(3);
    expect(reading.hours.map((h) => h.observedAt)).toEqual([T0 + 3 * HOUR, T0 + 4 * HOUR]);
  });

  it('leaves a recent trailing null for a later poll: it may still gain a rank', () => {
    // 05:10 now: the null at 05:00 is 10 minutes old, the one at 04:00 70 minutes.
    const reading = readRankingSeries([series('cozy mystery', [3, 3, 3, 3, null, null])], request);
    expect(reading.hours.at(-1)?.observedAt).toBe(T0 + 3 * HOUR);
    // Three hours later the same nulls have settled and are judged.
    const later = readRankingSeries([series('cozy mystery', [3, 3, 3, 3, null, null])], {
      ...request,
      nowMs: request.nowMs + 3 * HOUR,
    });
    expect(later.hours.at(-1)?.observedAt).toBe(T0 + 5 * HOUR);
  });

  it('reads an answer without this book as empty, judging nothing', () => {
    expect(readRankingSeries([], request)).toEqual({ hours: [], unreadableHours: 0, empty: true });
  });
});
