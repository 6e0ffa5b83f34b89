/**
 * Hostile lists (GET /v1/arc/reviews) through the real client and poll processor: huge pages,
 * thousands of reviews over many pages, cursors that loop or never end, duplicates, ids named like
 * prototype members. Each poll is a typed error outcome or sane data; alerts are exactly the real
 * changes, and a failed page never reads as "reviews vanished".
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Alert } from '../../src/model/alert.ts';
import type { PollResult } from '../../src/poll/processor.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import {
  type Answer,
  CHANGE_KINDS,
  type HostileApi,
  review,
  reviewsPage,
  startHostileApi,
  TARGETS,
  WORKSPACE,
} from './fixtures/api-payloads.ts';
import { sendJson, sendText } from './helpers.ts';

const prefix = testPrefix('rel-lists');
const redis = testRedis(prefix);
let api: HostileApi;
let seen = 0;
type Json = Record<string, unknown>;

const REF = { workspace: WORKSPACE, kind: 'reviews' as const, id: TARGETS.reviews };

function changes(): string[] {
  const fresh = api.sink.alerts.slice(seen);
  seen = api.sink.alerts.length;
  return fresh.filter((a) => CHANGE_KINDS.has(a.kind)).map((a: Alert) => `${a.kind} ${a.subject.reviewId}`);
}

async function poll(answer?: Answer): Promise<PollResult> {
  if (answer !== undefined) api.play.reviews = answer;
  try {
    return await api.harness.poll(TARGETS.reviews);
  } catch (error) {
    throw new Error(`the poll threw instead of ending as an outcome: ${String(error)}`);
  }
}

function reviewRequests(): number {
  return api.server.requests.filter((r) => r.path === '/v1/arc/reviews').length;
}

/** Serves `items` in pages of the size the client asks for; `broken` answers one page instead. */
function paged(items: readonly Json[], broken?: { page: number; answer: Answer }): Answer {
  return (res, url) => {
    const size = Number(url.searchParams.get('limit') ?? '100');
    const cursor = url.searchParams.get('cursor');
    const page = cursor === null ? 0 : Number(cursor.replace('page-', ''));
    if (broken !== undefined && broken.page === page) {
      if (typeof broken.answer === 'string') sendText(res, 200, broken.answer);
      else broken.answer(res, url);
      return;
    }
    const end = (page + 1) * size;
    sendJson(
      res,
      200,
      reviewsPage(items.slice(page * size, end), end < items.length ? `page-${end / size}` : null),
    );
  };
}

const many = (count: number) => Array.from({ length: count }, (_, i) => review(i + 1));

beforeAll(async () => {
  api = await startHostileApi(redis, prefix);
});

afterEach(async () => {
  changes();
});

afterAll(async () => {
  await api?.close();
});

describe('10,000 reviews of a campaign, 100 pages of 100', () => {
  const all = many(10_000);

  it('a silent baseline, then exactly the reviews that really arrived or left', async () => {
    const before = reviewRequests();
    expect(await poll(paged(all))).toMatchObject({ status: 'ok', baseline: true, requests: 100 });
    expect(reviewRequests() - before).toBe(100);
    expect(await poll()).toMatchObject({ status: 'ok', alerts: 0 });

    const arrived = review(20_001, 'r-new-one');
    const withNew = [...all.slice(0, 5_000), arrived, ...all.slice(5_000)];
    expect(await poll(paged(withNew))).toMatchObject({ status: 'ok' });
    expect(changes()).toEqual(['review_new r-new-one']);

    const withoutOne = withNew.filter((r) => r.review_id !== 'r-007000');
    expect(await poll(paged(withoutOne))).toMatchObject({ status: 'ok' });
    expect(changes()).toEqual([]);
    expect(await poll(paged(withoutOne))).toMatchObject({ status: 'ok' });
    expect(changes()).toEqual(['review_removed r-007000']);
  }, 30_000);

  it('a page that fails half-way is an error, never "the later reviews were removed"', async () => {
    const current = all.filter((r) => r.review_id !== 'r-007000');
    current.splice(5_000, 0, review(20_001, 'r-new-one'));
    await poll(paged(current));
    changes();
    const failures: [string, Answer][] = [
      ['a 500', (res) => sendText(res, 500, '{"error":{"code":"internal","message":"boom"}}')],
      ['an HTML page with 200', '<html>oops</html>'],
      ['a review rated 6', JSON.stringify(reviewsPage([{ ...review(1), rating: 6 }], 'page-81'))],
      [
        'a review without its id',
        JSON.stringify(reviewsPage([{ ...review(1), review_id: undefined }], 'page-81')),
      ],
    ];
    for (const [name, answer] of failures) {
      const stored = await api.harness.store.get(REF);
      const result = await poll(paged(current, { page: 80, answer }));
      expect([name, changes()]).toEqual([name, []]);
      expect([name, result.status]).toEqual([name, 'error']);
      expect(await api.harness.store.get(REF)).toEqual(stored);
      // The full list again: nothing changed since the baseline.
      expect(await poll(paged(current))).toMatchObject({ status: 'ok' });
      expect([name, changes()]).toEqual([name, []]);
    }
  }, 60_000);
});

describe('cursors', () => {
  it('a cursor that comes back (A → B → A) ends the poll as an error, after three requests', async () => {
    await poll(JSON.stringify(reviewsPage([review(1), review(2)])));
    changes();
    const before = reviewRequests();
    const loop: Answer = (res, url) => {
      const cursor = url.searchParams.get('cursor');
      sendJson(res, 200, reviewsPage([review(cursor === 'B' ? 2 : 1)], cursor === 'B' ? 'A' : 'B'));
    };
    const result = await poll(loop);
    expect(result).toMatchObject({ status: 'error' });
    expect(result.status === 'error' && result.reason).toMatch(/cursor "B" .*already followed/);
    expect(reviewRequests() - before).toBe(3);
    expect(changes()).toEqual([]);
  });

  it('a cursor chain that never ends is cut off: an error, a bounded number of requests', async () => {
    await poll(JSON.stringify(reviewsPage([review(1), review(2)])));
    changes();
    const before = reviewRequests();
    let served = 0;
    const endless: Answer = (res) => {
      served += 1;
      sendJson(res, 200, reviewsPage(served === 1 ? [review(1), review(2)] : [], `next-${served}`));
    };
    const result = await poll(endless);
    expect(result.status).toBe('error');
    // The poller's page cap: 1,000 requests, each one of the month's quota (see the report).
    expect(reviewRequests() - before).toBeLessThanOrEqual(1_001);
    expect(changes()).toEqual([]);
  }, 30_000);

  it('cursors that are empty, numbers or null-like text are contract errors', async () => {
    for (const next of ['""', '5', '{"page":2}', '[]']) {
      const text = `{"data":${JSON.stringify([review(1)])},"next_cursor":${next}}`;
      const result = await poll(text);
      expect([next, result.status]).toEqual([next, 'error']);
      expect(changes()).toEqual([]);
    }
  });
});

describe('duplicates and odd ids', () => {
  it('reviews listed twice, across pages, are one review each', async () => {
    const base = many(250);
    await poll(paged(base));
    changes();
    expect(await poll(paged([...base, ...base.slice(0, 120), ...base.slice(200)]))).toMatchObject({
      status: 'ok',
    });
    expect(changes()).toEqual([]);
    expect(await poll(paged(base))).toMatchObject({ status: 'ok' });
    expect(changes()).toEqual([]);
  });

  it('review ids named like Object.prototype members are ordinary ids', async () => {
    const ids = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'prototype'];
    const base = ids.map((id, i) => review(i + 1, id));
    // Twice: the previous test's reviews are absent from two answers, removed, out of the way.
    await poll(JSON.stringify(reviewsPage(base)));
    await poll();
    changes();
    expect(await poll()).toMatchObject({ status: 'ok' });
    expect(changes()).toEqual([]);
    await poll(JSON.stringify(reviewsPage(base.filter((r) => r.review_id !== '__proto__'))));
    await poll();
    expect(changes()).toEqual(['review_removed __proto__']);
    await poll(JSON.stringify(reviewsPage(base)));
    // Back again: a restore, never "new".
    expect(changes()).toEqual(['review_restored __proto__']);
    expect(({} as Json).polluted).toBeUndefined();
  });

  it('no reviews at all where there were some is no_data, not "every review was removed"', async () => {
    await poll(JSON.stringify(reviewsPage(many(30))));
    changes();
    const stored = await api.harness.store.get(REF);
    expect(await poll(JSON.stringify(reviewsPage([])))).toMatchObject({ status: 'no_data' });
    expect(changes()).toEqual([]);
    expect(await api.harness.store.get(REF)).toEqual(stored);
  });
});

describe('extreme but valid reviews', () => {
  it.each([
    ['published in year 1', { published_at: '0001-01-01T00:00:00Z' }],
    ['published in year 9999', { published_at: '9999-12-31T23:59:59Z' }],
    ['an id of 100,000 characters', { review_id: 'r'.repeat(100_000) }],
    ['a body of 5 MB', { body: 'b'.repeat(5_000_000) }],
    ['a lone surrogate in the reviewer name', { reviewer: 'half \ud83d of an emoji' }],
    ['a title with NUL and control bytes', { title: 'a\u0000b\u0007c\u001bd' }],
  ] as [string, Json][])(
    '%s: read or refused, never a crash; the same answer again is no change',
    async (_n, fields) => {
      await poll(JSON.stringify(reviewsPage([review(1), review(2)])));
      changes();
      // Review 2 stays listed: a review missing from two answers in a row would be a real removal.
      const text = JSON.stringify(reviewsPage([review(1), review(2), { ...review(3), ...fields }]));
      const first = await poll(text);
      expect(['ok', 'error']).toContain(first.status);
      changes();
      expect((await poll(text)).status).toBe(first.status);
      expect(changes()).toEqual([]);
    },
  );
});

describe('one huge page', () => {
  it('100,000 reviews in one answer (over 20 MB): read as data, alerting only the one new review', async () => {
    const huge = many(100_000);
    const text = JSON.stringify(reviewsPage(huge));
    expect(text.length).toBeGreaterThan(20_000_000);
    const first = await poll(text);
    changes();
    // A refusal (a size limit, with a reason that says so) is as good as reading it; a crash or
    // a false alert is not.
    expect(['ok', 'error']).toContain(first.status);
    if (first.status === 'error') {
      expect(first.reason).toMatch(/size|large|limit|bytes/i);
      return;
    }
    // The same 100,000 plus one: exactly that one is new (so none of the others was misread).
    const started = performance.now();
    expect(await poll(JSON.stringify(reviewsPage([review(0, 'r-brand-new'), ...huge])))).toMatchObject({
      status: 'ok',
    });
    expect((performance.now() - started) / 1000).toBeLessThan(15);
    expect(changes()).toEqual(['review_new r-brand-new']);
  }, 60_000);
});
