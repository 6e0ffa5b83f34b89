import { describe, expect, it } from 'vitest';
import { HOUR } from '../../src/sim/time.ts';
import { World } from '../../src/sim/world/index.ts';
import { salesRow } from '../../src/sim/world/sales.ts';
import { ASIN_RE, START, TestSim } from './helpers.ts';

const START_MS = Date.parse(START);
const DAY = 24 * HOUR;

function world(seed = 1, books = 12, campaigns = 2): World {
  return new World({ seed, books, campaigns, startMs: START_MS });
}

describe('determinism', () => {
  it('two simulators with the same seed answer identically at the same sim time', async () => {
    const a = await TestSim.startForTest({ seed: 42 });
    const b = await TestSim.startForTest({ seed: 42 });
    const asin = (await a.world()).books[4]!.asin;
    expect((await b.world()).books[4]!.asin).toBe(asin);
    const paths = [
      `/v1/books/${asin}`,
      `/v1/books/${asin}/keywords`,
      '/v1/keywords/search?q=thriller&limit=100',
      '/v1/rankings?limit=100',
      '/v1/arc/reviews?limit=100',
      '/v1/sales?limit=100',
    ];
    for (const sim of [a, b]) await sim.advance(5 * DAY + 1234);
    for (const path of paths) {
      const [x, y] = [await a.get(path), await b.get(path)];
      expect(x.status, path).toBe(200);
      expect(y.text, path).toBe(x.text);
    }
  });

  it('another seed gives another world', () => {
    expect(world(1).catalogue.books[0]!.asin).not.toBe(world(2).catalogue.books[0]!.asin);
  });

  it('a value at an hour does not depend on what was computed before', () => {
    const book = world().catalogue.books[5]!;
    const fresh = world().bookPayload(book, 'US', START_MS + 40 * DAY);
    const warmed = world();
    for (let day = 0; day < 40; day += 3) warmed.bookPayload(book, 'US', START_MS + day * DAY);
    expect(warmed.bookPayload(book, 'US', START_MS + 40 * DAY)).toEqual(fresh);
  });
});

describe('catalogue', () => {
  it('holds 1,000 books with unique ASINs, 1 to 3 marketplaces with US, one with 1,000 keywords', () => {
    const w = world(3, 1000);
    const books = w.catalogue.books;
    expect(books).toHaveLength(1000);
    expect(new Set(books.map((b) => b.asin)).size).toBe(1000);
    for (const book of books) {
      expect(book.asin).toMatch(ASIN_RE);
      expect(book.marketplaces[0]).toBe('US');
      expect(book.marketplaces.length).toBeGreaterThanOrEqual(1);
      expect(book.marketplaces.length).toBeLessThanOrEqual(3);
      expect(book.keywordCount).toBeGreaterThanOrEqual(20);
      expect(book.keywordCount).toBeLessThanOrEqual(1000);
    }
    const keywords = w.keywords.forBook(books[0]!);
    expect(keywords).toHaveLength(1000);
    expect(new Set(keywords).size).toBe(1000);
  });

  it('answers a book of a 1,000-book world a simulated month later without stepping through the month', () => {
    const w = world(3, 1000);
    const started = performance.now();
    const payload = w.bookPayload(w.catalogue.books[999]!, 'US', START_MS + 31 * DAY);
    const keywords = w.bookKeywords(w.catalogue.books[0]!, 'US', START_MS + 31 * DAY);
    // Generous bound: stepping through a month of hours for 1,000 books would take far longer.
    expect(performance.now() - started).toBeLessThan(500);
    expect(payload.bsr.history).toHaveLength(720);
    expect(keywords).toHaveLength(1000);
  });
});

describe('best-seller rank', () => {
  it('moves like a log-scale walk with occasional sales spikes and rare gaps', () => {
    const w = world(7, 40);
    let steps = 0;
    let smallSteps = 0;
    let spikes = 0;
    let nulls = 0;
    let points = 0;
    for (const book of w.catalogue.books) {
      const history = w.bookPayload(book, 'US', START_MS + 60 * DAY).bsr.history;
      for (let i = 1; i < history.length; i++) {
        const [prev, cur] = [history[i - 1]!.rank, history[i]!.rank];
        points += 1;
        if (cur === null) nulls += 1;
        if (prev === null || cur === null) continue;
        expect(Number.isInteger(cur) && cur >= 1).toBe(true);
        steps += 1;
        const change = Math.log10(cur / prev);
        if (Math.abs(change) < 0.1) smallSteps += 1;
        if (change < -0.2) spikes += 1;
      }
    }
    expect(smallSteps / steps).toBeGreaterThan(0.95);
    expect(spikes).toBeGreaterThan(10);
    expect(nulls / points).toBeLessThan(0.02);
  });
});

describe('sales', () => {
  it('revises provisional days as days pass and keeps days older than 14 days final', () => {
    const w = world(5, 30);
    const date = Date.parse('2026-11-10T00:00:00Z');
    const at = (daysLater: number) =>
      w.catalogue.books.map((book) =>
        salesRow(w.rng, w.events, book, 'US', date, date + daysLater * DAY + 3 * HOUR),
      );
    const [day1, day2, day14, day20] = [at(1), at(2), at(14), at(20)];
    expect(day2).not.toEqual(day1);
    expect(day20).toEqual(day14);
    const changed = day14.filter((row, i) => row.royalties.amount !== day2[i]!.royalties.amount);
    expect(changed.length).toBeGreaterThan(5);
  });

  it('writes yen without decimals and other currencies with two', () => {
    const w = world(5, 300);
    const book = w.catalogue.books.find((b) => b.marketplaces.includes('JP'))!;
    const row = salesRow(w.rng, w.events, book, 'JP', Date.parse('2026-11-01T00:00:00Z'), START_MS);
    expect(row.royalties.currency).toBe('JPY');
    expect(row.royalties.amount).toMatch(/^\d+$/);
    const us = salesRow(w.rng, w.events, book, 'US', Date.parse('2026-11-01T00:00:00Z'), START_MS);
    expect(us.ad_spend.amount).toMatch(/^\d+\.\d{2}$/);
  });
});

describe('ARC reviews', () => {
  it('arrive over sim time and sometimes vanish', () => {
    const w = world(11, 12, 10);
    const early = w.reviews(START_MS);
    const later = w.reviews(START_MS + 30 * DAY);
    expect(later.length).toBeGreaterThan(early.length + 30);
    const laterIds = new Set(later.map((r) => r.review_id));
    const seen = new Set<string>();
    for (let hour = 0; hour < 30 * 24; hour += 6) {
      for (const review of w.reviews(START_MS + hour * HOUR)) seen.add(review.review_id);
    }
    const vanished = [...seen].filter((id) => !laterIds.has(id));
    expect(vanished.length).toBeGreaterThan(0);
    expect(vanished.length).toBeLessThan(seen.size * 0.1);
  });
});
