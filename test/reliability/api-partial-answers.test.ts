/**
 * Partial and foreign answers through the real client and poll processor against a bare server
 * answering exactly the hostile page (issue #11 items 7 and 8): an empty page after a cursor, a walk
 * shorter than the total it states, reviews of another campaign, sales of another marketplace. Each
 * is an error outcome with no alert at all and the baseline unchanged; removals need two complete
 * answers, and a review back after its removal is a restore.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PollResult } from '../../src/poll/processor.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import {
  type Answer,
  type HostileApi,
  review,
  reviewsPage,
  salesDay,
  salesDays,
  startHostileApi,
  TARGETS,
  WORKSPACE,
} from './fixtures/api-payloads.ts';
import { sendJson } from './helpers.ts';

const prefix = testPrefix('rel-partial');
const redis = testRedis(prefix);
let api: HostileApi;
type Json = Record<string, unknown>;

beforeAll(async () => {
  api = await startHostileApi(redis, prefix);
});

afterAll(async () => {
  await api?.close();
});

/** Every alert raised since the last call, health alerts included: "nothing" means none at all. */
let seen = 0;
function alertsSince(): string[] {
  const fresh = api.sink.alerts.slice(seen);
  seen = api.sink.alerts.length;
  return fresh.map((a) => `${a.kind} ${a.subject.reviewId ?? a.subject.date ?? a.subject.targetId}`);
}

async function poll(target: keyof typeof TARGETS, answer?: Answer): Promise<PollResult> {
  if (answer !== undefined) api.play[target === 'keywords' ? 'keywords' : target] = answer;
  return api.harness.poll(TARGETS[target]);
}

/** Two pages: the first with a cursor, the second as `second` says (default: the rest of the list). */
function twoPages(
  items: readonly Json[],
  second?: (res: Parameters<Exclude<Answer, string>>[0]) => void,
): Answer {
  const half = Math.ceil(items.length / 2);
  return (res, url) => {
    if (url.searchParams.get('cursor') === null)
      sendJson(res, 200, reviewsPage(items.slice(0, half), 'page-2'));
    else if (second !== undefined) second(res);
    else sendJson(res, 200, reviewsPage(items.slice(half)));
  };
}

const reviewRef = { workspace: WORKSPACE, kind: 'reviews' as const, id: TARGETS.reviews };
const salesRef = { workspace: WORKSPACE, kind: 'sales' as const, id: TARGETS.sales };
// The 30-hour-old reviews of the issue: they sit on the second page.
const all = Array.from({ length: 6 }, (_, i) => review(i + 1 + (i >= 3 ? 1800 : 0)));

describe('a partial page and an answer about another campaign: nothing invented', () => {
  it('an empty second page after a cursor is an error: no alert, baseline kept, no later "new"', async () => {
    expect(await poll('reviews', twoPages(all))).toMatchObject({ status: 'ok', baseline: true });
    alertsSince();
    const stored = await api.harness.store.get(reviewRef);
    const result = await poll(
      'reviews',
      twoPages(all, (res) => sendJson(res, 200, reviewsPage([]))),
    );
    expect(result).toMatchObject({ status: 'error' });
    expect(result.status === 'error' && result.reason).toMatch(
      /incomplete|no items on a page asked for with a cursor/,
    );
    expect(alertsSince()).toEqual([]);
    expect(await api.harness.store.get(reviewRef)).toEqual(stored);
    expect(await poll('reviews', twoPages(all))).toMatchObject({ status: 'ok', alerts: 0 });
    expect(alertsSince()).toEqual([]);
  });

  it('a walk that ends with fewer items than the total it states is an error', async () => {
    const stored = await api.harness.store.get(reviewRef);
    const short = twoPages(all, (res) =>
      sendJson(res, 200, { ...reviewsPage(all.slice(3, 4)), total: all.length }),
    );
    expect(await poll('reviews', short)).toMatchObject({ status: 'error' });
    expect(alertsSince()).toEqual([]);
    expect(await api.harness.store.get(reviewRef)).toEqual(stored);
    // The same total with every item is a complete answer.
    const whole: Answer = (res) => sendJson(res, 200, { ...reviewsPage(all), total: all.length });
    expect(await poll('reviews', whole)).toMatchObject({ status: 'ok', alerts: 0 });
  });

  it('reviews of another campaign are an error, however many of them', async () => {
    const stored = await api.harness.store.get(reviewRef);
    const foreign = (n: number) => ({ ...review(9000 + n), campaign_id: 'camp-other' });
    for (const items of [
      [foreign(1), foreign(2), foreign(3)],
      [...all.slice(0, 5), foreign(4)],
    ]) {
      const result = await poll('reviews', JSON.stringify(reviewsPage(items)));
      expect(result).toMatchObject({ status: 'error' });
      expect(result.status === 'error' && result.reason).toMatch(
        /about campaign "camp-other", not what was asked/,
      );
      expect(alertsSince()).toEqual([]);
      expect(await api.harness.store.get(reviewRef)).toEqual(stored);
    }
  });

  it('sales rows of UK where US was asked are an error, the US baseline unchanged', async () => {
    expect(await poll('sales', JSON.stringify(reviewsPage(salesDays())))).toMatchObject({ status: 'ok' });
    alertsSince();
    const stored = await api.harness.store.get(salesRef);
    const uk = salesDays().map((day) => ({ ...day, marketplace: 'UK' }));
    const result = await poll('sales', JSON.stringify(reviewsPage(uk)));
    expect(result).toMatchObject({ status: 'error' });
    expect(result.status === 'error' && result.reason).toMatch(/about marketplace "UK", not what was asked/);
    expect(alertsSince()).toEqual([]);
    expect(await api.harness.store.get(salesRef)).toEqual(stored);
    expect(await poll('sales', JSON.stringify(reviewsPage(salesDays())))).toMatchObject({
      status: 'ok',
      alerts: 0,
    });
  });
  it('sales rows dated outside the asked from–to are an error, the baseline unchanged', async () => {
    expect(await poll('sales', JSON.stringify(reviewsPage(salesDays())))).toMatchObject({ status: 'ok' });
    alertsSince();
    const stored = await api.harness.store.get(salesRef);
    for (const date of ['2019-01-01', '2099-12-31']) {
      const result = await poll('sales', JSON.stringify(reviewsPage([...salesDays(), salesDay(date)])));
      expect(result).toMatchObject({ status: 'error' });
      expect(result.status === 'error' && result.reason).toMatch(
        new RegExp(`about date "${date}", not what was asked`),
      );
      expect(alertsSince()).toEqual([]);
      expect(await api.harness.store.get(salesRef)).toEqual(stored);
    }
  });
});

describe('removal needs complete answers; a return is a restore', () => {
  it('a review absent from two complete answers is removed once, and back it is restored, never new', async () => {
    await poll('reviews', JSON.stringify(reviewsPage(all)));
    alertsSince();
    const without = all.filter((r) => r.review_id !== all[4]?.review_id);
    const id = String(all[4]?.review_id);
    expect(await poll('reviews', JSON.stringify(reviewsPage(without)))).toMatchObject({ status: 'ok' });
    expect(alertsSince()).toEqual([]);
    // A failed poll in between is no answer: it neither counts nor resets.
    expect(await poll('reviews', (res) => res.writeHead(500).end())).toMatchObject({ status: 'error' });
    expect(await poll('reviews', JSON.stringify(reviewsPage(without)))).toMatchObject({ status: 'ok' });
    expect(alertsSince()).toEqual([`review_removed ${id}`]);
    expect(await poll('reviews', JSON.stringify(reviewsPage(all)))).toMatchObject({ status: 'ok' });
    expect(alertsSince()).toEqual([`review_restored ${id}`]);
    expect(await poll('reviews', JSON.stringify(reviewsPage(all)))).toMatchObject({
      status: 'ok',
      alerts: 0,
    });
  });
});
