/**
 * End to end with the real rules: polls of the simulator raise a keyword drop that keeps firing
 * (repeatEvery 1h), deliveries run on a real pipeline. Snoozed, the repeat is kept back and never
 * sent later; after the snooze is expired, the condition alerts again only on its next repeat.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Alert } from '../../src/model/alert.ts';
import type { KeywordsObservation } from '../../src/model/observation.ts';
import { snoozeOf } from '../../src/silence/snooze.ts';
import { CapturingNotifier, settings, startPipeline } from '../deliver/pipeline-harness.ts';
import { factsOf } from '../helpers/alert-facts.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { useSimulator } from '../helpers/sim.ts';
import { waitFor } from '../helpers/wait.ts';
import { createHarness, type Harness, parseOrThrow } from '../poll/engine-harness.ts';

const KEY = 'sk_silence_repeat_0123456789';
const HOUR = 3_600_000;
const prefix = testPrefix('silence-repeat');
const redis = testRedis(prefix);
const capture = new CapturingNotifier('log');
let harness: Harness;
let pipeline: Awaited<ReturnType<typeof startPipeline>>;
let asin: string;

const fx = useSimulator({
  seed: 7,
  books: 1,
  key: KEY,
  workspace: 'ws-repeat',
  plan: 'custom:100000:10000000',
});

beforeAll(async () => {
  asin = fx.world.books[0]?.asin ?? '';
  pipeline = await startPipeline({
    prefix,
    channels: [capture],
    settings: new Map([['log', settings({ paceKey: 'log', groupWaitMs: 100, groupIntervalMs: 100 })]]),
  });
  const config = parseOrThrow({
    redis: { prefix },
    workspaces: [
      {
        id: 'ws-repeat',
        baseUrl: fx.url,
        apiKey: KEY,
        plan: 'custom:100000:10000000',
        books: [{ asin, marketplaces: ['US'], keywords: { top: 100 } }],
        sales: false,
      },
    ],
    rules: [{ id: 'kw', kind: 'keyword_rank_drop', positionsLost: 5, repeatEvery: '1h' }],
  });
  harness = createHarness({
    sim: fx.sim,
    redis,
    prefix,
    config,
    sink: { enqueue: (a) => pipeline.send([...a]) },
  });
});

afterAll(async () => {
  await pipeline?.stop();
  await harness?.close();
});

describe('a silence ends: the condition alerts again only as its rule repeats', () => {
  it('snoozed repeat kept and never sent; the next repeat after expiry is sent', async () => {
    const target = `keywords/${asin}/US`;
    const t0 = Date.UTC(2026, 10, 25, 8);
    await harness.poll(target, t0);
    const stored = await harness.store.get({ workspace: 'ws-repeat', kind: 'keywords', id: target });
    const ranks = (stored?.observation as KeywordsObservation | undefined)?.ranks ?? [];
    const tracked = ranks.find((r) => r.rank !== null && r.rank <= 40);
    if (tracked === undefined || tracked.rank === null) throw new Error('no ranked keyword to drop');
    await fx.control.event({
      type: 'keyword_rank',
      asin,
      keyword: tracked.keyword,
      rank: tracked.rank + 25,
    });

    await harness.poll(target, t0 + 60_000);
    await capture.waitForAlerts(1, 10_000);
    const fired = capture.messages[0]?.message.alerts[0] as Alert;
    expect(fired.kind).toBe('keyword_rank_drop');
    expect(fired.episode).toBeTypeOf('number');
    const now = Date.now();
    const snooze = await pipeline.runtime.silences.add(
      { ...snoozeOf(fired, now, undefined), reason: 'snoozed', createdBy: 'test' },
      now,
    );

    // An hour later the rule repeats: the snooze keeps it back.
    await harness.poll(target, t0 + 60_000 + HOUR);
    await waitFor('a hit', async () => (await pipeline.runtime.silences.hits()).get(snooze.id) === 1, 10_000);
    const [kept] = await pipeline.runtime.silences.silencedBetween(0, Date.now() + 1);
    expect(factsOf(kept?.alert)?.repeat).toBe(1);

    // Expired: nothing kept comes out; a poll before the next repeat is due sends nothing either.
    await pipeline.runtime.silences.expire(snooze.id, Date.now());
    await harness.poll(target, t0 + 60_000 + HOUR + 30 * 60_000);
    // The next repeat is sent.
    await harness.poll(target, t0 + 60_000 + 2 * HOUR);
    await capture.waitForAlerts(2, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const sent = capture.messages.flatMap((m) => m.message.alerts);
    expect(sent.map((a) => factsOf(a).repeat)).toEqual([0, 2]);
    expect(sent.map((a) => a.fingerprint)).not.toContain(kept?.alert.fingerprint);
  }, 60_000);
});
