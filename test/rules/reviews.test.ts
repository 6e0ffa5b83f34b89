import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/rules/engine.ts';
import { factsOf } from '../helpers/alert-facts.ts';
import { book, HOUR, kinds, review, reviews, rule, run, T0 } from './helpers.ts';

const newReview = rule({ id: 'new', kind: 'review_new' });
const removedReview = rule({ id: 'removed', kind: 'review_removed' });
const countDown = rule({ id: 'count', kind: 'review_count_down' });

describe('review_new', () => {
  it('is silent on the first poll, then alerts once per new review id', () => {
    const a = review('r1', 5);
    const b = review('r2', 4, { platform: 'goodreads' });
    const c = review('r3', 3, { platform: 'audible' });
    const { perPoll } = run(
      [newReview],
      [reviews(T0, [a]), reviews(T0 + HOUR, [c, b, a]), reviews(T0 + 2 * HOUR, [c, b, a])],
    );
    expect(perPoll.map((p) => p.map((x) => x.subject.reviewId))).toEqual([[], ['r3', 'r2'], []]);
    expect(perPoll[1]?.[1]?.title).toBe('New 4★ Goodreads review of B0CJ4XQ2ZK (campaign camp-1)');
    expect(perPoll[1]?.[1]?.facts).toMatchObject({ rating: 4, platform: 'goodreads', lowStar: false });
  });

  it('names the book by its title and author when the poller knows them, the ASIN as a detail', () => {
    const books = new Map([
      ['B0CJ4XQ2ZK', { title: 'The Lighthouse Keeper’s Secret', author: 'M. A. Winter' }],
    ]);
    const ctx = { workspace: 'ws', targetId: 't1', nowMs: T0 + HOUR, books };
    const a = review('r1', 5);
    const { alerts } = evaluate(ctx, [newReview], reviews(T0, []), reviews(T0 + HOUR, [a]), undefined);
    expect(alerts[0]?.title).toBe(
      'New 5★ Amazon review of “The Lighthouse Keeper’s Secret” (B0CJ4XQ2ZK) (campaign camp-1)',
    );
    expect(alerts[0]?.facts).toMatchObject({
      bookTitle: 'The Lighthouse Keeper’s Secret',
      author: 'M. A. Winter',
    });
  });

  it('flags low-star reviews so channels can hide the text, and keeps the text out of the title', () => {
    const low = review('r9', 2, { body: 'Awful.' });
    const { alerts } = run([newReview], [reviews(T0, []), reviews(T0 + HOUR, [low])]);
    expect(alerts[0]?.facts).toMatchObject({ lowStar: true, body: 'Awful.' });
    expect(alerts[0]?.title).not.toContain('Awful');
    const strict = rule({ id: 'n', kind: 'review_new', lowStarAt: 1 });
    expect(factsOf(run([strict], [reviews(T0, []), reviews(T0 + HOUR, [low])]).alerts[0])?.lowStar).toBe(
      false,
    );
  });

  it('severity follows meaning: a 1–2★ review is a warning by default, a 5★ one stays info', () => {
    const low = review('r7', 2, { body: 'Meh.' });
    const high = review('r8', 5, { body: 'Great.' });
    const { alerts } = run([newReview], [reviews(T0, []), reviews(T0 + HOUR, [low, high])]);
    expect(alerts.map((a) => [a.subject.reviewId, a.severity])).toEqual([
      ['r7', 'warning'],
      ['r8', 'info'],
    ]);
  });

  it('carries hostile text verbatim: escaping is the channel’s job', () => {
    const hostile = review('r6', 5, {
      title: '<!channel> & <script>alert(1)</script>',
      body: '<@U123> *bold* `code` <https://evil.example|click>',
      reviewer: '<!here>',
    });
    const { alerts } = run([newReview], [reviews(T0, []), reviews(T0 + HOUR, [hostile])]);
    expect(alerts[0]?.facts).toMatchObject({
      reviewTitle: '<!channel> & <script>alert(1)</script>',
      body: '<@U123> *bold* `code` <https://evil.example|click>',
      reviewer: '<!here>',
    });
  });

  it('filters on platform, rating and book', () => {
    const list = [
      review('a', 1),
      review('b', 5, { platform: 'audible' }),
      review('c', 3, { asin: 'B000000001' }),
    ];
    const seq = [reviews(T0, []), reviews(T0 + HOUR, list)];
    const ids = (r: ReturnType<typeof rule>) => run([r], seq).alerts.map((x) => x.subject.reviewId);
    expect(ids(rule({ id: 'x', kind: 'review_new', platforms: ['audible'] }))).toEqual(['b']);
    expect(ids(rule({ id: 'x', kind: 'review_new', minRating: 3 }))).toEqual(['b', 'c']);
    expect(ids(rule({ id: 'x', kind: 'review_new', maxRating: 2 }))).toEqual(['a']);
    expect(ids(rule({ id: 'x', kind: 'review_new', books: ['B000000001'] }))).toEqual(['c']);
  });

  it('fingerprints by review id: stable across re-runs, distinct per review', () => {
    const prev = reviews(T0, []);
    const next = reviews(T0 + HOUR, [review('r1', 5), review('r2', 5)]);
    const ctx = { workspace: 'ws', targetId: 't1', nowMs: next.observedAt };
    const a = evaluate(ctx, [newReview], prev, next, undefined);
    const b = evaluate(
      { ...ctx, nowMs: ctx.nowMs + 1 },
      [newReview],
      prev,
      { ...next, observedAt: next.observedAt + 1 },
      undefined,
    );
    expect(a.alerts.map((x) => x.fingerprint)).toEqual(b.alerts.map((x) => x.fingerprint));
    expect(new Set(a.alerts.map((x) => x.fingerprint)).size).toBe(2);
  });
});

describe('review_removed and review_count_down', () => {
  it('alerts once per review that disappeared from two complete answers in a row', () => {
    const a = review('r1', 5);
    const b = review('r2', 1);
    const { perPoll } = run(
      [newReview, removedReview],
      [
        reviews(T0, [a, b]),
        reviews(T0 + HOUR, [a]),
        reviews(T0 + 2 * HOUR, [a]),
        reviews(T0 + 3 * HOUR, [a]),
      ],
    );
    expect(perPoll.map(kinds)).toEqual([[], [], ['review_removed'], []]);
    expect(perPoll[2]?.[0]).toMatchObject({ subject: { reviewId: 'r2' }, facts: { rating: 1 } });
    expect(perPoll[2]?.[0]?.title).toBe('A 1★ Amazon review of B0CJ4XQ2ZK was removed (campaign camp-1)');
  });

  it('a review missing from one answer and back in the next is neither removed nor new', () => {
    const a = review('r1', 5);
    const b = review('r2', 4);
    const { alerts } = run(
      [newReview, removedReview],
      [
        reviews(T0, [a]),
        reviews(T0 + HOUR, [a, b]),
        reviews(T0 + 2 * HOUR, [a]),
        reviews(T0 + 3 * HOUR, [a, b]),
      ],
    );
    expect(alerts.map((x) => `${x.kind} ${x.subject.reviewId}`)).toEqual(['review_new r2']);
  });

  it('alerts when the review count goes down, with before and after', () => {
    const seq = [
      book(T0, 1, [], { reviewCount: 312 }),
      book(T0 + HOUR, 1, [], { reviewCount: 305 }),
      book(T0 + 2 * HOUR, 1, [], { reviewCount: 306 }),
    ];
    const { perPoll } = run([countDown], seq);
    expect(perPoll.map(kinds)).toEqual([[], ['review_count_down'], []]);
    expect(perPoll[1]?.[0]?.facts).toMatchObject({ before: 312, after: 305, delta: -7 });
    expect(perPoll[1]?.[0]?.title).toBe(
      'Review count of “The Teapot Murders” went down from 312 to 305 (B0CJ4XQ2ZK, US)',
    );
  });

  it('an unknown count is not zero, and minDrop filters small drops', () => {
    const seq = [
      book(T0, 1, [], { reviewCount: 312 }),
      book(T0 + HOUR, 1, [], { reviewCount: null }),
      book(T0 + 2 * HOUR, 1, [], { reviewCount: 311 }),
    ];
    expect(run([countDown], seq).alerts).toEqual([]);
    const big = rule({ id: 'c', kind: 'review_count_down', minDrop: 5 });
    expect(
      run([big], [book(T0, 1, [], { reviewCount: 312 }), book(T0 + HOUR, 1, [], { reviewCount: 309 })])
        .alerts,
    ).toEqual([]);
  });
});
