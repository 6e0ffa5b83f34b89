import type {
  BookObservation,
  KeywordsObservation,
  Observation,
  ReviewsObservation,
  SalesObservation,
  TargetRef,
} from '../../src/model/observation.ts';
import { seededRandom } from '../../src/sim/prng.ts';

const T0 = Date.UTC(2026, 10, 21, 14, 0, 0);
const HOUR = 3_600_000;

export function targetOf(workspace: string, o: Observation, id?: string): TargetRef {
  return { workspace, kind: o.kind, id: id ?? `${o.kind}:1` };
}

export function book(overrides: Partial<BookObservation> = {}): BookObservation {
  const rand = seededRandom(7);
  const bsrHistory = Array.from({ length: 72 }, (_, i) => ({
    at: T0 - (72 - i) * HOUR,
    rank: i % 17 === 5 ? null : 1500 + Math.round(rand() * 800),
  }));
  return {
    kind: 'book',
    observedAt: T0,
    asin: 'B0CJ4XQ2ZK',
    marketplace: 'US',
    title: 'The Quiet Orchard — a “cozy” mystery',
    author: 'Ada Lindqvist',
    bsr: 1834,
    bsrCategory: 'Kindle Store',
    bsrHistory,
    reviewCount: 312,
    averageRating: 4.4,
    ...overrides,
  };
}

const UNICODE_KEYWORDS = [
  'krimi gemütlich',
  '推理小説 ミステリー',
  'رواية غموض',
  'детектив уютный',
  'cozy mystery 🍂☕',
  'e\u0301le\u0301gant', // combining accents: must not be normalised
  'tab\tand\nnewline',
  '',
];

/** `n` keywords in API order; every 10th unranked, unicode ones mixed in. */
export function keywords(
  n = 1000,
  seed = 1,
  overrides: Partial<KeywordsObservation> = {},
): KeywordsObservation {
  const rand = seededRandom(seed);
  const ranks = Array.from({ length: n }, (_, i) => {
    const unicode = i % 97 === 3 ? UNICODE_KEYWORDS[((i / 97) % UNICODE_KEYWORDS.length) | 0] : undefined;
    return {
      keyword:
        unicode === undefined ? `keyword ${i} ${Math.floor(rand() * 1e6).toString(36)}` : `${unicode} ${i}`,
      rank: i % 10 === 9 ? null : 1 + Math.floor(rand() * 300),
    };
  });
  return { kind: 'keywords', observedAt: T0, asin: 'B0CJ4XQ2ZK', marketplace: 'US', ranks, ...overrides };
}

/** The same list with new ranks: what a later poll of an unchanged keyword list looks like. */
export function reranked(o: KeywordsObservation, seed: number): KeywordsObservation {
  const rand = seededRandom(seed);
  return {
    ...o,
    observedAt: o.observedAt + HOUR,
    ranks: o.ranks.map((r) => ({
      keyword: r.keyword,
      rank: rand() < 0.1 ? null : 1 + Math.floor(rand() * 300),
    })),
  };
}

export const HOSTILE_TITLE = '<!channel> <script>alert(1)</script> & "quotes" \u202Eevil\u0000';

export function reviews(): ReviewsObservation {
  return {
    kind: 'reviews',
    observedAt: T0,
    campaignId: 'camp-1',
    reviews: [
      {
        reviewId: 'R1',
        asin: 'B0CJ4XQ2ZK',
        platform: 'amazon',
        rating: 5,
        publishedAt: T0 - HOUR,
        title: HOSTILE_TITLE,
        body: 'Loved it <@U123>',
        reviewer: 'Mallory',
        url: 'https://example.com/r/1',
      },
      {
        reviewId: 'R2',
        asin: 'B0CJ4XQ2ZK',
        platform: 'goodreads',
        rating: 2,
        publishedAt: T0 - 2 * HOUR,
        title: null,
        body: '',
        reviewer: 'Bob',
        url: null,
      },
      {
        reviewId: 'R3',
        asin: 'B0DDDDDDDD',
        platform: 'audible',
        rating: 4,
        publishedAt: T0 - 3 * HOUR,
        title: 'ok',
        body: 'fine',
        reviewer: 'Eve',
        url: null,
      },
    ],
  };
}

/** What a stored reviews observation decodes to: summaries, with the free text dropped. */
export function summariesOnly(o: ReviewsObservation): ReviewsObservation {
  return { ...o, reviews: o.reviews.map((r) => ({ ...r, title: null, body: '', reviewer: '', url: null })) };
}

export function sales(): SalesObservation {
  const days = [];
  for (const asin of ['B0CJ4XQ2ZK', 'B0DDDDDDDD']) {
    for (let d = 0; d < 15; d++) {
      days.push({
        asin,
        marketplace: 'US',
        date: new Date(T0 - (15 - d) * 24 * HOUR).toISOString().slice(0, 10),
        units: d * 3,
        royalties: { minor: 1234 * d - 50, currency: 'USD' },
        adSpend: { minor: 999, currency: 'USD' },
      });
    }
  }
  return { kind: 'sales', observedAt: T0, marketplace: null, days };
}

/** Every kind once, as [name, observation], for table-driven tests. */
export function everyKind(): [string, Observation][] {
  return [
    ['book', book()],
    ['keywords', keywords()],
    ['reviews', reviews()],
    ['sales', sales()],
  ];
}

/** What the store gives back for an observation it was given. */
export function asStored(o: Observation): Observation {
  return o.kind === 'reviews' ? summariesOnly(o) : o;
}
