import { describe, expect, it } from 'vitest';
import type { BookObservation } from '../../src/model/observation.ts';
import { netSentiment, rollBaseline } from '../../src/rules/sentiment.ts';
import { book, HOUR, kinds, rule, run, T0 } from './helpers.ts';

const shift = (extra: object = {}) => rule({ id: 'mood', kind: 'sentiment_shift', ...extra });

interface Reading {
  rating?: number | null;
  positive?: number;
  negative?: number;
  reviews?: number;
}

function polls(readings: Reading[]): BookObservation[] {
  return readings.map((r, i) => {
    const positive = r.positive ?? 0.8;
    const negative = r.negative ?? 0.06;
    return book(T0 + i * HOUR, 1000, [], {
      averageRating: r.rating === undefined ? 4.4 : r.rating,
      reviewCount: r.reviews ?? 300,
      sentiment: { positive, negative, neutral: 1 - positive - negative },
    });
  });
}

describe('sentiment_shift', () => {
  it('measures net sentiment in points and rolls the baseline exponentially', () => {
    expect(netSentiment(polls([{ positive: 0.81, negative: 0.07 }])[0]!)).toBe(74);
    expect(rollBaseline(4.4, 4.2, 3)).toBeCloseTo(4.3);
    expect(rollBaseline(null, 4.2, 3)).toBe(4.2);
  });

  it('fires once when the rating falls by the threshold, not on small wobbles, and resolves', () => {
    const readings = [4.4, 4.35, 4.45, 4.38, 4.1, 4.12, 4.3, 4.4].map((rating) => ({ rating }));
    const { perPoll } = run([shift({ sendResolved: true })], polls(readings), undefined, { stored: true });
    expect(perPoll.map(kinds)).toEqual([
      [],
      [],
      [],
      [],
      ['sentiment_shift'],
      [],
      ['sentiment_recovered'],
      [],
    ]);
    const alert = perPoll[4]?.[0];
    expect(alert?.subject).toEqual({ asin: 'B0CJ4XQ2ZK', marketplace: 'US', measure: 'rating' });
    expect(alert?.title).toMatch(
      /^Average rating of “The Teapot Murders” fell to 4\.10 from a baseline of 4\.40 /,
    );
    expect(alert?.facts).toMatchObject({ measure: 'rating', after: 4.1, threshold: 0.2 });
  });

  it('fires on net sentiment too, with its own fingerprint', () => {
    const { perPoll } = run(
      [shift()],
      polls([{}, {}, { positive: 0.7, negative: 0.12 }, { positive: 0.7, negative: 0.12 }]),
    );
    expect(perPoll.map(kinds)).toEqual([[], [], ['sentiment_shift'], []]);
    expect(perPoll[2]?.[0]?.facts).toMatchObject({ measure: 'sentiment', before: 74, after: 58 });
  });

  it('is silent on the baseline poll, without a rating, and below minReviews', () => {
    expect(run([shift()], polls([{ rating: 3.0 }, { rating: 3.0 }])).alerts).toEqual([]);
    expect(run([shift()], polls([{ rating: null }, { rating: 4.4 }, { rating: null }])).alerts).toEqual([]);
    const few = polls([{ reviews: 5 }, { rating: 3.1, reviews: 6 }]);
    expect(run([shift()], few).alerts).toEqual([]);
  });

  it('drifts with the baseline: a slow slide never fires', () => {
    const readings = Array.from({ length: 40 }, (_, i) => ({ rating: 4.4 - i * 0.02 }));
    expect(run([shift({ baselinePolls: 4 })], polls(readings)).alerts).toEqual([]);
  });

  it('turns a measure off with false', () => {
    const readings = [{ rating: 4.4 }, { rating: 3.9 }];
    expect(run([shift({ ratingChange: false })], polls(readings)).alerts).toEqual([]);
  });
});
