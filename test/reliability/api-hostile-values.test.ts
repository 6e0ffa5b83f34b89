/**
 * Hostile values in otherwise well-formed book and keyword answers, through the real client and
 * poll processor: each poll ends as an error outcome (baseline kept) or as sane data, never as a
 * crash, and never as a change alert. After each one the valid answer again must be "no change"
 * too, which proves the hostile answer left no trace in the baseline or the rule state.
 */
import { describe, expect, it } from 'vitest';
import { factsOf } from '../helpers/alert-facts.ts';
import { type Answer, book, CHANGE_KINDS, keywords } from './fixtures/api-payloads.ts';
import { EITHER, ERROR, edit, type Json, OK, type Status, useHostileApi } from './fixtures/harmless.ts';

const checks = useHostileApi('rel-values', ['book', 'keywords']);
const { ref, newAlerts, changes, poll, expectHarmless } = checks;

const bsrOf = (b: Json) => b.bsr as Json;
const sentimentOf = (b: Json) => b.review_sentiment as Json;
const firstKeyword = (k: Json) => (k.data as Json[])[0] as Json;

function deeplyNested(depth: number): string {
  return `${'['.repeat(depth)}1${']'.repeat(depth)}`;
}

describe('GET /v1/books/{asin}', () => {
  const cases: [string, () => Answer, Status[]][] = [
    [
      'review_count null',
      () => edit(book, (b) => Object.assign(sentimentOf(b), { review_count: null })),
      ERROR,
    ],
    ['rank "NaN"', () => edit(book, (b) => Object.assign(bsrOf(b), { rank: 'NaN' })), ERROR],
    ['rank "Infinity"', () => edit(book, (b) => Object.assign(bsrOf(b), { rank: 'Infinity' })), ERROR],
    [
      'rank 1e999 (Infinity once parsed)',
      () => JSON.stringify(book()).replace('"rank":1200,"category"', '"rank":1e999,"category"'),
      ERROR,
    ],
    ['rank -5', () => edit(book, (b) => Object.assign(bsrOf(b), { rank: -5 })), ERROR],
    ['rank 0', () => edit(book, (b) => Object.assign(bsrOf(b), { rank: 0 })), ERROR],
    ['rank 1.5', () => edit(book, (b) => Object.assign(bsrOf(b), { rank: 1.5 })), ERROR],
    [
      'average rating as text',
      () => edit(book, (b) => Object.assign(sentimentOf(b), { average_rating: '4.2' })),
      ERROR,
    ],
    [
      'observed_at "yesterday"',
      () => edit(book, (b) => Object.assign(bsrOf(b), { observed_at: 'yesterday' })),
      ERROR,
    ],
    ['history as a mapping', () => edit(book, (b) => Object.assign(bsrOf(b), { history: { 0: 1 } })), ERROR],
    ['an empty body', () => '', ERROR],
    ['null', () => 'null', ERROR],
    ['a list instead of the book', () => '[]', ERROR],
    ['an HTML page with status 200', () => '<html><body>Service Unavailable</body></html>', ERROR],
    ['truncated JSON', () => JSON.stringify(book()).slice(0, 200), ERROR],
    [
      '10,000 levels of nesting in an unknown field',
      () => `{"x_nested":${deeplyNested(10_000)},${JSON.stringify(book()).slice(1)}`,
      OK,
    ],
    [
      '100,000 levels of nesting in the title',
      () => edit(book, (b) => Object.assign(b, { title: '@@' })).replace('"@@"', deeplyNested(100_000)),
      ERROR,
    ],
    ['history out of order', () => edit(book, (b) => (bsrOf(b).history as unknown[]).reverse()), OK],
    [
      'the same history point twice',
      () =>
        edit(book, (b) => {
          const history = bsrOf(b).history as unknown[];
          history.push(history.at(-1));
        }),
      OK,
    ],
    [
      '200,000 history points (about 13 MB)',
      () =>
        edit(book, (b) => {
          const history = bsrOf(b).history as Json[];
          const last = history.at(-1) as Json;
          Object.assign(bsrOf(b), { history: Array.from({ length: 200_000 }, () => last) });
        }),
      EITHER,
    ],
  ];

  it.each(cases)(
    '%s',
    async (_name, answer, allowed) => {
      const result = await expectHarmless('book', answer(), allowed);
      if (result.status === 'ok') {
        const stored = await checks.api.harness.store.get(ref('book'));
        expect(stored?.observation).toMatchObject({ kind: 'book', bsr: 1200, reviewCount: 50 });
        if (stored?.observation.kind === 'book')
          expect(stored.observation.bsrHistory.length).toBeLessThanOrEqual(72);
      }
    },
    20_000,
  );

  const MAX = Number.MAX_SAFE_INTEGER;
  const extremes: [string, () => Answer][] = [
    ['a rank of 2^53 - 1', () => edit(book, (b) => Object.assign(bsrOf(b), { rank: MAX }))],
    [
      'a review count of 2^53 - 1',
      () => edit(book, (b) => Object.assign(sentimentOf(b), { review_count: MAX })),
    ],
    [
      'history in year 1 and year 9999',
      () =>
        edit(book, (b) => {
          const history = bsrOf(b).history as Json[];
          Object.assign(history[0] as Json, { at: '0001-01-01T00:00:00Z' });
          Object.assign(history[1] as Json, { at: '9999-12-31T23:59:59Z' });
        }),
    ],
    [
      'observed in year 1',
      () => edit(book, (b) => Object.assign(bsrOf(b), { observed_at: '0001-01-01T00:00:00Z' })),
    ],
    ['a title of 1 MB', () => edit(book, (b) => Object.assign(b, { title: 'T'.repeat(1_000_000) }))],
    [
      'a lone surrogate in the title',
      () => edit(book, (b) => Object.assign(b, { title: 'bad \ud800 half' })),
    ],
  ];

  it.each(extremes)(
    '%s: read or refused, never a crash; the same answer again is no change',
    async (_n, answer) => {
      await checks.expectStableTwice('book', answer());
    },
  );

  it('__proto__ and constructor keys pollute no prototype and change nothing', async () => {
    const text = JSON.stringify(book())
      .replace('{', '{"__proto__":{"polluted":"top"},"constructor":{"prototype":{"polluted":"ctor"}},')
      .replace('"bsr":{', '"bsr":{"__proto__":{"rank":1,"polluted":"bsr"},')
      .replace('"review_sentiment":{', '"review_sentiment":{"__proto__":{"review_count":0},');
    await expectHarmless('book', text, OK);
    expect(({} as Json).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    const stored = await checks.api.harness.store.get(ref('book'));
    expect(stored?.observation).toMatchObject({ bsr: 1200, reviewCount: 50 });
  });

  it('an answer about another book or marketplace is not read as this one', async () => {
    // A proxy or cache mix-up: the body describes B0DEF12345 (ranked far worse) or the UK store.
    const other = edit(book, (b) => {
      Object.assign(b, { asin: 'B0DEF12345' });
      Object.assign(bsrOf(b), { rank: 250_000 });
    });
    const uk = edit(book, (b) => {
      Object.assign(b, { marketplace: 'UK' });
      Object.assign(bsrOf(b), { rank: 250_000 });
    });
    await expectHarmless('book', other, ERROR);
    await expectHarmless('book', uk, ERROR);
  });
});

describe('GET /v1/books/{asin}/keywords', () => {
  const cases: [string, () => Answer, Status[]][] = [
    [
      'traffic share 2',
      () => edit(keywords, (k) => Object.assign(firstKeyword(k), { traffic_share: 2 })),
      ERROR,
    ],
    ['rank -1', () => edit(keywords, (k) => Object.assign(firstKeyword(k), { rank: -1 })), ERROR],
    ['rank "3"', () => edit(keywords, (k) => Object.assign(firstKeyword(k), { rank: '3' })), ERROR],
    [
      'search volume null',
      () => edit(keywords, (k) => Object.assign(firstKeyword(k), { search_volume: null })),
      ERROR,
    ],
    ['an empty keyword', () => edit(keywords, (k) => Object.assign(firstKeyword(k), { keyword: '' })), ERROR],
    [
      '1,001 keywords (the contract says at most 1,000)',
      () => JSON.stringify(keywords(Array.from({ length: 1001 }, (_, i) => `kw ${i}`))),
      ERROR,
    ],
    [
      'data as a mapping',
      () => edit(keywords, (k) => Object.assign(k, { data: { 0: firstKeyword(k) } })),
      ERROR,
    ],
    [
      'a keyword listed again further down, ranked far worse',
      () =>
        edit(keywords, (k) => {
          (k.data as Json[]).push({ ...firstKeyword(k), rank: 999 });
        }),
      OK,
    ],
  ];

  it.each(cases)('%s', async (_name, answer, allowed) => {
    await expectHarmless('keywords', answer(), allowed);
  });

  it.each([
    [
      'a rank of 2^53 - 1',
      () => edit(keywords, (k) => Object.assign(firstKeyword(k), { rank: Number.MAX_SAFE_INTEGER })),
    ],
    [
      'a keyword of 100,000 characters',
      () => edit(keywords, (k) => Object.assign(firstKeyword(k), { keyword: 'k'.repeat(100_000) })),
    ],
    [
      'a lone surrogate in a keyword',
      () => edit(keywords, (k) => Object.assign(firstKeyword(k), { keyword: 'x\udc00y' })),
    ],
    [
      '1,000 keywords',
      () => JSON.stringify(keywords(Array.from({ length: 1000 }, (_, i) => `keyword ${i}`))),
    ],
  ] as [string, () => Answer][])(
    '%s: read or refused, never a crash; the same answer again is no change',
    async (_n, answer) => {
      await checks.expectStableTwice('keywords', answer());
    },
  );

  it('keywords named like Object.prototype members are ordinary keywords', async () => {
    const tricky = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];
    const valid = checks.api.play.keywords;
    try {
      checks.api.play.keywords = JSON.stringify(keywords(tricky));
      await poll('keywords'); // the list changed: new keywords are silent baselines
      newAlerts();
      expect(await poll('keywords')).toMatchObject({ status: 'ok' });
      expect(changes(newAlerts())).toEqual([]);
      // "__proto__" really falls 20 places: exactly that one alert, about that keyword.
      checks.api.play.keywords = edit(
        () => keywords(tricky),
        (k) => Object.assign(firstKeyword(k), { rank: 23 }),
      );
      expect(await poll('keywords')).toMatchObject({ status: 'ok' });
      const fired = newAlerts().filter((a) => CHANGE_KINDS.has(a.kind));
      expect(fired.map((a) => [a.kind, factsOf(a).keyword, factsOf(a).before, factsOf(a).after])).toEqual([
        ['keyword_rank_drop', '__proto__', 3, 23],
      ]);
      expect(({} as Json).polluted).toBeUndefined();
    } finally {
      checks.api.play.keywords = valid;
      await poll('keywords');
      newAlerts();
    }
  });
});
