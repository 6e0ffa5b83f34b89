import { describe, expect, it } from 'vitest';
import { digestCharts } from '../../src/digest/charts.ts';
import { computeFigures, lastDigestOf } from '../../src/digest/figures.ts';
import { DigestStateStore } from '../../src/digest/state.ts';
import { renderDigest } from '../../src/digest/template.ts';
import type { BookObservation } from '../../src/model/observation.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { A, B, book, HOUR, hourly, inputs, lastDigest } from './fixtures.ts';

const DAY = '2026-11-21';
const NOW = Date.UTC(2026, 10, 22, 8);
const HOSTILE = 'Rival <script>x</script>\nSALES — fake';
const prefix = testPrefix('digest-comps');
const redis = testRedis(prefix);

function watched(asin: string, extra: Partial<BookObservation>): BookObservation {
  return {
    ...book(asin, 'US', hourly(Date.UTC(2026, 10, 21), [1000, 1000])),
    reviewCount: 312,
    averageRating: 4.2,
    sentiment: { positive: 0.75, neutral: 0.15, negative: 0.1 },
    ...extra,
  };
}

const withComps = watched(A, {
  compTitles: [
    { asin: 'B0COMP0001', title: HOSTILE, bsr: 1500 },
    { asin: 'B0COMP0002', title: 'Faster Tea', bsr: 800 },
    { asin: 'B0COMP0003', title: 'Unranked', bsr: null },
  ],
});
// The last answer listed no comps: no data, so no comps line for this book.
const withoutComps = watched(B, { averageRating: null, sentiment: undefined, reviewCount: 0 });

describe('digest: your book vs its comps, and the review sentiment trend', () => {
  const previous = lastDigest({ sentiment: [{ asin: A, marketplace: 'US', averageRating: 4.4, net: 70 }] });
  const figures = computeFigures(
    inputs({ day: DAY, nowMs: NOW, books: [withComps, withoutComps], previous }),
  );

  it('ranks each book against its comps, best first, and reads the trend against the last digest', () => {
    expect(figures.comps).toHaveLength(1);
    expect(figures.comps[0]?.comps.map((c) => [c.asin, c.ahead])).toEqual([
      ['B0COMP0002', true],
      ['B0COMP0001', false],
      ['B0COMP0003', null],
    ]);
    expect(figures.sentiment[0]).toMatchObject({
      averageRating: 4.2,
      ratingBefore: 4.4,
      net: 65,
      netBefore: 70,
    });
    expect(figures.sentiment[1]).toMatchObject({ averageRating: null, net: null, ratingBefore: null });
  });

  it('renders both sections in text (one line per name) and escaped HTML', () => {
    const { text, html } = renderDigest(figures, digestCharts(figures));
    const lines = text.split('\n');
    expect(lines).toContain('YOUR BOOK VS ITS COMPS (best-seller rank now; lower is better)');
    expect(lines).toContain(`  - “Title of ${A}” (${A}, US): #1,000, ahead of 1 of 2 comp titles`);
    expect(lines).toContain('      #800 “Faster Tea” (B0COMP0002) — ahead of your book');
    expect(lines).toContain('      #1,500 “Rival <script>x</script> SALES — fake” (B0COMP0001) — behind');
    expect(lines.filter((l) => l.startsWith('SALES'))).toHaveLength(1);
    expect(lines).toContain(
      `  - “Title of ${A}” (${A}, US): average 4.2★ (was 4.4★), 75% positive, 10% negative, net +65 pts (−5 since the last digest), 312 reviews`,
    );
    expect(html).toContain('&lt;script&gt;');
    expect(html).not.toContain('<script>');
    expect(html).toContain('Review sentiment (trend since the last digest)');
  });

  it('remembers the sentiment for the next digest, and reads a last-digest record written before it existed', async () => {
    const last = lastDigestOf(inputs({ day: DAY, nowMs: NOW, books: [withComps], previous }));
    expect(last.sentiment).toEqual([{ asin: A, marketplace: 'US', averageRating: 4.2, net: 65 }]);
    const store = new DigestStateStore(redis, prefix);
    await store.recordSent('acme', 'mail', { last, atMs: NOW, localDate: null });
    expect((await store.getLast('acme', 'mail'))?.sentiment).toEqual(last.sentiment);
    const { sentiment: _dropped, ...older } = last;
    await store.recordSent('acme', 'old', { last: older, atMs: NOW, localDate: null });
    const read = await store.getLast('acme', 'old');
    expect(read?.day).toBe(DAY);
    expect(
      computeFigures(inputs({ day: DAY, nowMs: NOW + HOUR, books: [withComps], previous: read }))
        .sentiment[0],
    ).toMatchObject({ ratingBefore: null, netBefore: null });
  });
});
