/**
 * The book page's comps and reviews over HTTP (fastify's inject, a real Redis): comps from the
 * stored book snapshot with their BSR against the book's, hostile comp titles as text; low-star
 * reviews marked "hidden by your routes" where a route hides their text, rating and platform kept.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reviewsSection } from '../../src/console/pages/book-sections.ts';
import type { Observation, ReviewDetail } from '../../src/model/observation.ts';
import { ASIN, HOST, HOSTILE, login, startConsoleRuntime } from './harness.ts';

let env: Awaited<ReturnType<typeof startConsoleRuntime>>;
let cookie: string;
const NOW = Date.now();

const review = (id: string, rating: number, body = ''): ReviewDetail => ({
  reviewId: id,
  asin: ASIN,
  platform: rating === 1 ? 'goodreads' : 'amazon',
  rating,
  publishedAt: NOW - rating * 3_600_000,
  title: null,
  body,
  reviewer: '',
  url: null,
});

async function commit(kind: 'book' | 'reviews', id: string, observation: Observation) {
  const ok = await env.runtime.store.commit(
    { workspace: 'main', kind, id },
    { observation, ruleState: undefined, committedAt: NOW },
    0,
  );
  if (!ok) throw new Error(`could not store ${id}`);
}

beforeAll(async () => {
  env = await startConsoleRuntime('console-book-page', {
    rules: [
      { id: 'new-review', kind: 'review_new', lowStarAt: 2 },
      { id: 'comps', kind: 'comp_overtook', margin: 0.2 },
    ],
    routes: [
      { match: {}, channels: ['slack-main'] },
      { match: { kind: ['review_new'] }, channels: ['mail'], hideLowStarText: true },
    ],
  });
  await commit('book', `book/${ASIN}/US`, {
    kind: 'book',
    observedAt: NOW,
    asin: ASIN,
    marketplace: 'US',
    title: 'The Quiet Orbit',
    author: 'Ada Quill',
    bsr: 1_000,
    bsrCategory: null,
    bsrHistory: [],
    reviewCount: 3,
    averageRating: 3,
    compTitles: [
      { asin: 'B0COMPAHEAD', title: 'Starward Drift', bsr: 700 },
      { asin: 'B0COMPLEVEL', title: HOSTILE[0] ?? '', bsr: 1_100 },
      { asin: 'B0COMPBEHND', title: HOSTILE[1] ?? '', bsr: 4_000 },
      { asin: 'B0COMPNORNK', title: 'Unranked Comp', bsr: null },
    ],
  });
  await commit('reviews', 'reviews/camp-1', {
    kind: 'reviews',
    observedAt: NOW,
    campaignId: 'camp-1',
    reviews: [review('r-1', 1), review('r-2', 2), review('r-5', 5)],
  });
  ({ cookie } = await login(env.app));
});
afterAll(async () => env?.close());

const bookPage = async () => {
  const res = await env.app.inject({ url: `/books/main/${ASIN}/US`, headers: { host: HOST, cookie } });
  expect(res.statusCode).toBe(200);
  return res.body;
};

/** The row of a table whose text contains `needle`, as text without tags. */
function rowWith(body: string, needle: string): string {
  const row = body.split('<tr>').find((r) => r.includes(needle));
  return (row ?? '').replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
}

describe('book page', () => {
  it("lists the snapshot's comps with their BSR against the book's, in comp_overtook's terms", async () => {
    const body = await bookPage();
    expect(body).toContain('<h2>Comps</h2>');
    expect(body).toContain('this book is #1,000');
    expect(rowWith(body, 'B0COMPAHEAD')).toContain(
      'Starward Drift B0COMPAHEAD #700 ahead (BSR 0.70× this book',
    );
    // 1,100 is within the rule's 20% margin: level, neither ahead nor behind.
    expect(rowWith(body, 'B0COMPLEVEL')).toContain('#1,100 level (BSR 1.10×');
    expect(rowWith(body, 'B0COMPBEHND')).toContain('#4,000 behind (BSR 4.00×');
    expect(rowWith(body, 'B0COMPNORNK')).toContain('unranked not comparable');
    expect(body).toContain("better than this book's by more than 20%");
    expect(body).toContain('&lt;script&gt;alert(&quot;xss&quot;)&lt;/script&gt;');
    expect(body).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(body).not.toContain('<script>alert');
    expect(body).not.toContain('<img src=x');
  });

  it('marks low-star reviews "hidden by your routes" and keeps their rating and platform', async () => {
    const body = await bookPage();
    expect(rowWith(body, '(1 of 5)')).toMatch(/goodreads .*\(1 of 5\) text hidden by your routes/);
    expect(rowWith(body, '(2 of 5)')).toMatch(/amazon .*\(2 of 5\) text hidden by your routes/);
    expect(rowWith(body, '(5 of 5)')).toMatch(/amazon .*\(5 of 5\) not kept/);
    expect(body).toContain('(hideLowStarText)');
  });

  it('says when the book answer listed no comps, and when nothing is hidden', async () => {
    await env.runtime.store.commit(
      { workspace: 'main', kind: 'book', id: `book/${ASIN}/US` },
      {
        observation: {
          kind: 'book',
          observedAt: NOW + 1,
          asin: ASIN,
          marketplace: 'US',
          title: 'The Quiet Orbit',
          author: 'Ada Quill',
          bsr: 1_000,
          bsrCategory: null,
          bsrHistory: [],
          reviewCount: 3,
          averageRating: 3,
        },
        ruleState: undefined,
        committedAt: NOW + 1,
      },
      1,
    );
    const body = await bookPage();
    expect(body).toContain('listed no comparable titles');
    expect(body).not.toContain('Starward Drift');
  });
});

describe('reviews section with review text (should snapshots ever keep it)', () => {
  it('shows text as text, and never the text of a review the routes hide', () => {
    const reviews = [review('a', 1, 'HURTFUL words'), review('b', 5, HOSTILE[0] ?? '')];
    const out = reviewsSection(reviews, (r) => r.rating <= 2).value;
    expect(out).not.toContain('HURTFUL');
    expect(out).toContain('text hidden by your routes');
    expect(out).toContain('&lt;script&gt;alert(&quot;xss&quot;)&lt;/script&gt;');
    expect(out).not.toContain('<script>');
  });
});
