/**
 * A review of a book the workspace does not watch names the book by its title: the title is asked
 * of the API once (one request, charged to the workspace's budget), cached in Redis with a TTL, and
 * never asked when the plan cannot afford the request (then the ASIN names it, as before). Campaigns are named by their configured name.
 */
import { describe, expect, it } from 'vitest';
import { pollLimits } from '../../src/budget/limits.ts';
import { bookTitleKey } from '../../src/poll/keys.ts';
import { TitleCache } from '../../src/poll/title-cache.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { useSimulator } from '../helpers/sim.ts';
import { CapturingSink, createHarness, parseOrThrow } from './engine-harness.ts';

const KEY = 'sk_campaign_titles_0123456789';
const WS = 'ws-titles';

function setUp(name: string, plan: string) {
  const prefix = testPrefix(name);
  const redis = testRedis(prefix);
  const fx = useSimulator({ seed: 33, books: 3, key: KEY, workspace: WS, plan });
  const start = () => {
    const campaign = fx.campaign();
    const book = fx.world.books.find((b) => b.asin === campaign.asin);
    if (book === undefined) throw new Error('the campaign has no book in the world');
    const config = parseOrThrow({
      redis: { prefix },
      workspaces: [
        {
          id: WS,
          baseUrl: fx.url,
          apiKey: KEY,
          plan,
          reserve: 0,
          // The campaign's book is not watched: no book target names it.
          campaigns: [{ id: campaign.campaign_id, name: 'Spring launch ARC' }],
        },
      ],
      rules: [{ id: 'new-review', kind: 'review_new' }],
    });
    const sink = new CapturingSink();
    const harness = createHarness({ sim: fx.sim, redis, prefix, config, sink });
    harness.deps.titles = new TitleCache(redis, prefix);
    const ws = config.workspaces[0];
    if (ws === undefined) throw new Error('no workspace');
    const monthUsed = async () => (await harness.deps.budget.usage(WS, pollLimits(ws))).monthUsed;
    const review = (rating: number) =>
      fx.control.event({
        type: 'review',
        campaign_id: campaign.campaign_id,
        platform: 'amazon',
        rating,
        body: 'A read.',
        reviewer: 'Kim',
      });
    return {
      harness,
      sink,
      redis,
      prefix,
      campaign,
      book,
      monthUsed,
      review,
      ceiling: pollLimits(ws).monthCeiling ?? 0,
      control: fx.control,
      target: `reviews/${campaign.campaign_id}`,
    };
  };
  return start;
}

describe('a review of a book that is not watched', () => {
  const start = setUp('campaign-titles', 'custom:1000:100000');

  it('is named by the title looked up once (one request charged), then by the cache', async () => {
    const t = start();
    try {
      // The baseline poll already names the campaign's books: the lookup happens there, once.
      const before = await t.monthUsed();
      const baseline = await t.harness.poll(t.target);
      expect(baseline).toMatchObject({ status: 'ok', baseline: true });
      expect((await t.monthUsed()) - before).toBe((baseline.status === 'ok' ? baseline.requests : 0) + 1);
      const ttl = await t.redis.pttl(bookTitleKey(t.prefix, WS, t.campaign.asin));
      expect(ttl).toBeGreaterThan(24 * 3_600_000);

      await t.review(5);
      const again = await t.monthUsed();
      const result = await t.harness.poll(t.target);
      expect(result).toMatchObject({ status: 'ok', alerts: 1 });
      // The cache names it: the poll's own requests only, no second lookup.
      expect((await t.monthUsed()) - again).toBe(result.status === 'ok' ? result.requests : -1);
      const alert = t.sink.ofKind('review_new')[0];
      expect(alert?.title).toContain(`“${t.book.title}” (${t.campaign.asin})`);
      expect(alert?.title).toContain('(campaign “Spring launch ARC”)');
      expect(alert?.facts).toMatchObject({ bookTitle: t.book.title, campaignName: 'Spring launch ARC' });
      const books = (await t.control.requests()).filter((r) => r.path.startsWith('/v1/books/'));
      expect(books).toHaveLength(1);
    } finally {
      await t.harness.close();
    }
  });
});

describe('when the plan cannot afford the lookup', () => {
  const start = setUp('campaign-titles-poor', 'custom:1000:200');

  it('sends no lookup past the month ceiling and caches nothing', async () => {
    const t = start();
    try {
      // Room for the poll's one request, none for a lookup.
      await t.harness.deps.budget.syncMonthUsed(WS, t.ceiling - 1);
      const result = await t.harness.poll(t.target);
      expect(result).toMatchObject({ status: 'ok', baseline: true, requests: 1 });
      expect(await t.monthUsed()).toBe(t.ceiling);
      const books = (await t.control.requests()).filter((r) => r.path.startsWith('/v1/books/'));
      expect(books).toEqual([]);
      // Nothing cached: a later poll with room asks.
      expect(await t.redis.exists(bookTitleKey(t.prefix, WS, t.campaign.asin))).toBe(0);
    } finally {
      await t.harness.close();
    }
  });
});
