import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeywordsObservation, SalesObservation } from '../../src/model/observation.ts';
import { allDialects } from '../contract/helpers.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { useSimulator } from '../helpers/sim.ts';
import { CapturingSink, createHarness, type Harness, parseOrThrow } from './engine-harness.ts';

/** The alert kinds each contract's run raised, in order: every dialect must raise the default's. */
const alertKinds = new Map<string, string[]>();

// The same scenarios against the assumed contract and against each shipped dialect: the simulator
// speaks the dialect, the workspace reads it through the same contract file (api.contract).
describe.each(allDialects())('against the $name contract', (dialect) => {
  const KEY = 'sk_engine_test_0123456789';
  const prefix = testPrefix(`engine-${dialect.name}`);
  const redis = testRedis(prefix);
  let harness: Harness;
  let sink: CapturingSink;
  let asin: string;
  let campaignId: string;

  const ids = () => ({
    book: `book/${asin}/US`,
    keywords: `keywords/${asin}/US`,
    reviews: `reviews/${campaignId}`,
    sales: 'sales/US',
  });

  const fx = useSimulator({
    seed: 21,
    books: 3,
    ...(dialect.sim === undefined ? {} : { dialect: dialect.sim }),
    key: KEY,
    workspace: 'ws-engine',
    plan: 'custom:100000:10000000',
  });

  beforeAll(async () => {
    const campaign = fx.campaign();
    campaignId = campaign.campaign_id;
    asin = campaign.asin;
    const config = parseOrThrow({
      redis: { prefix },
      workspaces: [
        {
          id: 'ws-engine',
          baseUrl: fx.url,
          ...(dialect.file === undefined ? {} : { api: { contract: dialect.file } }),
          apiKey: KEY,
          plan: 'custom:100000:10000000',
          books: [{ asin, marketplaces: ['US'], keywords: { top: 100 } }],
          campaigns: [{ id: campaignId }],
          sales: { marketplaces: ['US'] },
        },
      ],
      rules: [
        { id: 'kw', kind: 'keyword_rank_drop', positionsLost: 5, sendResolved: true },
        { id: 'bsr', kind: 'bsr_worsened', factor: 1 },
        { id: 'bsr-gone', kind: 'bsr_removed' },
        { id: 'new-review', kind: 'review_new' },
        { id: 'gone-review', kind: 'review_removed' },
        { id: 'royalty', kind: 'royalty_change', minAbsolute: 1, percent: 50, direction: 'down' },
        { id: 'revision', kind: 'sales_revision' },
        { id: 'health', kind: 'source_health', failures: 3 },
      ],
    });
    sink = new CapturingSink();
    harness = createHarness({ sim: fx.sim, redis, prefix, config, sink });
    // Every target's first poll is a silent baseline.
    for (const id of Object.values(ids())) {
      const result = await harness.poll(id);
      expect(result).toMatchObject({ status: 'ok', baseline: true, alerts: 0 });
    }
    expect(sink.alerts).toEqual([]);
  });

  afterAll(async () => {
    alertKinds.set(dialect.name, sink?.alerts.map((alert) => alert.kind) ?? []);
    await harness?.close();
  });

  async function stored<T>(targetId: string): Promise<T> {
    const kind = targetId.split('/')[0] as 'keywords';
    const value = await harness.store.get({ workspace: 'ws-engine', kind, id: targetId });
    if (value === undefined) throw new Error(`no snapshot for ${targetId}`);
    return value.observation as T;
  }

  /** Polls twice after an event: the event alerts on the first poll and never again on the second. */
  async function alertsAfter(targetId: string, kind: Parameters<CapturingSink['ofKind']>[0]) {
    const before = sink.ofKind(kind).length;
    await harness.poll(targetId);
    const fired = sink.ofKind(kind).slice(before);
    await harness.poll(targetId);
    expect(sink.ofKind(kind).length - before, `${kind} fires once, not again on the next poll`).toBe(
      fired.length,
    );
    return fired;
  }

  describe('each alert kind fires exactly once for its scripted event', () => {
    it('keyword rank drop, then recovery', async () => {
      const observation = await stored<KeywordsObservation>(ids().keywords);
      const tracked = observation.ranks.find((r) => r.rank !== null && r.rank <= 40);
      if (tracked === undefined || tracked.rank === null) throw new Error('no ranked keyword to drop');
      await fx.control.event({
        type: 'keyword_rank',
        asin,
        keyword: tracked.keyword,
        rank: tracked.rank + 25,
      });
      const drops = await alertsAfter(ids().keywords, 'keyword_rank_drop');
      expect(drops).toHaveLength(1);
      expect(drops[0]?.subject).toMatchObject({ asin, keyword: tracked.keyword });
      // Named by the book people know, from the book's own snapshot (no extra API request).
      const book = await stored<{ title: string; author: string }>(ids().book);
      expect(drops[0]?.title).toContain(`for “${book.title}” (${asin}, US)`);
      expect(drops[0]?.facts).toMatchObject({ bookTitle: book.title, author: book.author });
      await fx.control.event({
        type: 'keyword_rank',
        asin,
        keyword: tracked.keyword,
        rank: tracked.rank,
      });
      expect(await alertsAfter(ids().keywords, 'keyword_rank_recovered')).toHaveLength(1);
    });

    it('BSR worsened against its rolling median', async () => {
      const book = await stored<{ bsr: number | null }>(ids().book);
      if (book.bsr === null) throw new Error('book has no BSR');
      await fx.control.event({ type: 'bsr', asin, rank: book.bsr * 6 + 100 });
      expect(await alertsAfter(ids().book, 'bsr_worsened')).toHaveLength(1);
    });

    it('BSR removed (null is a removal, not a drop) and restored', async () => {
      const worsenedBefore = sink.ofKind('bsr_worsened').length;
      await fx.control.event({ type: 'bsr', asin, rank: null });
      expect(await alertsAfter(ids().book, 'bsr_removed')).toHaveLength(1);
      expect(sink.ofKind('bsr_worsened').length).toBe(worsenedBefore);
      await fx.control.event({ type: 'bsr', asin, rank: 5_000 });
      expect(await alertsAfter(ids().book, 'bsr_restored')).toHaveLength(1);
    });

    it('a new ARC review, carrying hostile text verbatim for the channel to escape', async () => {
      const body = '<!channel> <script>alert(1)</script> & great book';
      const { review_id } = await fx.control.call<{ review_id: string }>('POST', '/_sim/events', {
        type: 'review',
        campaign_id: campaignId,
        platform: 'goodreads',
        rating: 1,
        body,
        reviewer: 'Mallory',
      });
      const fresh = await alertsAfter(ids().reviews, 'review_new');
      expect(fresh).toHaveLength(1);
      expect(fresh[0]?.subject.reviewId).toBe(review_id);
      expect(fresh[0]?.facts).toMatchObject({ lowStar: true, rating: 1 });

      await fx.control.event({ type: 'remove_review', review_id });
      // Absent from one complete answer is not yet a removal: it takes two in a row.
      const removedBefore = sink.ofKind('review_removed').length;
      await harness.poll(ids().reviews);
      expect(sink.ofKind('review_removed').length).toBe(removedBefore);
      const removed = await alertsAfter(ids().reviews, 'review_removed');
      expect(removed).toHaveLength(1);
      expect(removed[0]?.subject.reviewId).toBe(review_id);
    });

    it('a revision of a provisional sales day is its own alert', async () => {
      const sales = await stored<SalesObservation>(ids().sales);
      const day = sales.days.filter((d) => d.asin === asin).at(-2);
      if (day === undefined) throw new Error('no provisional sales day');
      const revised = ((day.royalties.minor + 1234) / 100).toFixed(2);
      await fx.control.event({
        type: 'sales_revision',
        asin,
        marketplace: 'US',
        date: day.date,
        royalties: revised,
      });
      const revisions = (await alertsAfter(ids().sales, 'sales_revision')).filter(
        (a) => a.subject.date === day.date,
      );
      expect(revisions).toHaveLength(1);
      expect(sink.ofKind('royalty_change').filter((a) => a.subject.date === day.date)).toEqual([]);
    });

    it('a royalty drop on a new day', async () => {
      await fx.control.advance(86_400_000);
      const next = new Date(fx.sim.clock.now()).toISOString().slice(0, 10);
      // The day that just appeared, made to look like a collapse before shelfwatch first sees it.
      await fx.control.event({
        type: 'sales_revision',
        asin,
        marketplace: 'US',
        date: next,
        royalties: '0.01',
      });
      // Other books of the account may move on their own that day; only the scripted one is asserted.
      const changes = (await alertsAfter(ids().sales, 'royalty_change')).filter(
        (a) => a.subject.date === next && a.subject.asin === asin,
      );
      expect(changes).toHaveLength(1);
      expect(changes[0]?.subject).toMatchObject({ asin, currency: 'USD' });
    });
  });

  describe('faults never alert as changes', () => {
    it('5xx, HTML, malformed JSON and timeouts raise one source-health alert after 3 in a row, then one recovery', async () => {
      const target = ids().keywords;
      const before = sink.alerts.length;
      const faults = [
        { kind: 'status', status: 503, code: 'unavailable', count: 2 },
        { kind: 'html', status: 502, count: 2 },
        { kind: 'malformed_json', count: 2 },
      ] as const;
      for (const fault of faults) {
        await fx.control.fault({ ...fault, pathPrefix: `/v1/books/${asin}/keywords` });
        expect(await harness.poll(target)).toMatchObject({ status: 'error' });
      }
      const healthKinds = () =>
        sink.alerts
          .slice(before)
          .filter((a) => a.kind.startsWith('source_'))
          .map((a) => a.kind);
      expect(healthKinds()).toEqual(['source_health']);
      await fx.control.fault({
        kind: 'drop_field',
        field: dialect.keywordsEnvelope,
        pathPrefix: `/v1/books/${asin}/keywords`,
      });
      expect(await harness.poll(target)).toMatchObject({ status: 'error' });
      expect(healthKinds()).toEqual(['source_health']);
      expect(await harness.poll(target)).toMatchObject({ status: 'ok' });
      expect(healthKinds()).toEqual(['source_health', 'source_recovered']);
    });

    it('a drifted field: source_health names the logical field, its path and what was found; other targets poll on', async () => {
      const before = sink.alerts.length;
      const { name, path } = dialect.searchVolume;
      await fx.control.fault({
        kind: 'drop_field',
        field: name,
        count: 3,
        pathPrefix: `/v1/books/${asin}/keywords`,
      });
      for (let poll = 0; poll < 3; poll++) {
        expect(await harness.poll(ids().keywords)).toMatchObject({ status: 'error' });
      }
      // The drift of the keywords answer is that target's alone.
      expect(await harness.poll(ids().reviews)).toMatchObject({ status: 'ok' });
      const health = sink.alerts.slice(before).filter((alert) => alert.kind === 'source_health');
      expect(health).toHaveLength(1);
      const drift = String(health[0]?.facts.drift);
      expect(drift).toContain(`bookKeywords.keywords[0].searchVolume at ${path}: `);
      expect(drift).toContain('found nothing (the field is missing)');
      expect(health[0]?.title).toContain('no longer fit the API contract');
      expect(await harness.poll(ids().keywords)).toMatchObject({ status: 'ok' });
    });

    it('a 429 pauses the workspace and defers the poll without an error outcome', async () => {
      await fx.control.fault({
        kind: 'status',
        status: 429,
        code: 'rate_limited',
        retryAfter: { seconds: 2 },
        pathPrefix: '/v1/books',
      });
      const before = sink.alerts.length;
      await expect(harness.poll(ids().book)).rejects.toMatchObject({ name: 'PollDeferredError' });
      const health = await harness.store.getHealth({ workspace: 'ws-engine', kind: 'book', id: ids().book });
      expect(health.lastOutcome).toBe('ok');
      expect(sink.alerts.length).toBe(before);
      const usage = await harness.deps.budget.usage('ws-engine');
      expect(usage.pauseReason).toBe('rate_limited');
    });
  });
});

describe('every dialect', () => {
  it('raised the same alerts, in the same order, as the assumed contract', () => {
    const reference = alertKinds.get('default');
    expect(reference?.length).toBeGreaterThan(8);
    for (const [name, kinds] of alertKinds) expect({ name, kinds }).toEqual({ name, kinds: reference });
  });
});
