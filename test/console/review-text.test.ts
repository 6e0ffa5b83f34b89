/**
 * The book page hides a review's text exactly when delivery would: a low-star review (per the
 * review_new rule's lowStarAt) routed somewhere with hideLowStarText. Real config parsing and the
 * real router; no Redis.
 */
import { describe, expect, it } from 'vitest';
import { reviewTextHider } from '../../src/console/review-text.ts';
import { createRouter } from '../../src/deliver/routing.ts';
import type { ReviewSummary } from '../../src/model/observation.ts';
import { parseOrThrow } from '../poll/engine-harness.ts';

const ASIN = 'B0CJ4XQ2ZK';
const OTHER = 'B0OTHER001';

function hiderFor(extra: Record<string, unknown>) {
  const config = parseOrThrow({
    workspaces: [
      {
        id: 'main',
        baseUrl: 'http://127.0.0.1:9',
        apiKey: 'sk_review_text_0123456789',
        books: [
          { asin: ASIN, marketplaces: ['US'], author: 'Ada Quill' },
          { asin: OTHER, marketplaces: ['US'] },
        ],
      },
    ],
    channels: [
      { id: 'log', type: 'log' },
      { id: 'team', type: 'log' },
    ],
    ...extra,
  });
  const registryRules = config.rules;
  return reviewTextHider('main', registryRules, createRouter(config));
}

const review = (rating: number, asin = ASIN): ReviewSummary => ({
  reviewId: `r-${rating}-${asin}`,
  asin,
  platform: 'amazon',
  rating,
  publishedAt: 0,
});

describe('review text on the book page', () => {
  it('is shown when no route hides low-star text (the default catch-all route)', () => {
    const hidden = hiderFor({});
    expect([1, 2, 3, 5].map((r) => hidden(review(r)))).toEqual([false, false, false, false]);
  });

  it("is hidden for ratings up to review_new's lowStarAt when a route to any channel hides it", () => {
    const hidden = hiderFor({
      routes: [
        { match: {}, channels: ['log'] },
        { match: { author: 'Ada Quill' }, channels: ['team'], hideLowStarText: true },
      ],
    });
    expect([1, 2, 3, 5].map((r) => hidden(review(r)))).toEqual([true, true, false, false]);
    // The other book's alerts never reach the hiding route.
    expect(hidden(review(1, OTHER))).toBe(false);
  });

  it("follows the rule's lowStarAt and the route's kind and severity", () => {
    const rules = [{ id: 'reviews', kind: 'review_new', lowStarAt: 3, severity: 'warning' }];
    const bySeverity = hiderFor({
      rules,
      routes: [{ match: { severity: ['warning'] }, channels: ['team'], hideLowStarText: true }],
    });
    expect([1, 3, 4].map((r) => bySeverity(review(r)))).toEqual([true, true, false]);
    const otherKind = hiderFor({
      rules,
      routes: [{ match: { kind: ['review_removed'] }, channels: ['team'], hideLowStarText: true }],
    });
    expect(otherKind(review(1))).toBe(false);
  });

  it('a digest-only route pushes nothing, so it hides nothing (as in delivery)', () => {
    const hidden = hiderFor({
      routes: [{ match: {}, channels: ['team'], hideLowStarText: true, digestOnly: true }],
    });
    expect(hidden(review(1))).toBe(false);
  });
});
