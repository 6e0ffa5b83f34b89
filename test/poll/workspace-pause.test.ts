/**
 * Pauses the API causes (issue #11 items 2 and 3): a refused key alerts at once, a 429's wait is
 * bounded by what its limit can mean, a long pause alerts once, and recovery is announced once.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resumeWorkspace } from '../../src/app/resume.ts';
import { MAX_RATE_LIMIT_PAUSE_MS } from '../../src/budget/api-outcome-policy.ts';
import { utcBillingMonth } from '../../src/budget/keys.ts';
import { factsOf } from '../helpers/alert-facts.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { useSimulator } from '../helpers/sim.ts';
import { CapturingSink, createHarness, type Harness, parseOrThrow } from './engine-harness.ts';

const KEY = 'sk_pause_test_0123456789';
const PLAN = 'custom:100000:10000000';
const WS = 'ws-pause';
const prefix = testPrefix('pause');
const redis = testRedis(prefix);
let harness: Harness;
let sink: CapturingSink;
let targets: string[];

const fx = useSimulator({
  seed: 5,
  books: 2,
  key: KEY,
  workspace: WS,
  plan: PLAN,
});

beforeAll(async () => {
  const [first, second] = fx.world.books;
  if (first === undefined || second === undefined) throw new Error('the simulator world has no books');
  targets = [`book/${first.asin}/US`, `book/${second.asin}/US`];
  const config = parseOrThrow({
    redis: { prefix },
    workspaces: [
      {
        id: WS,
        baseUrl: fx.url,
        apiKey: KEY,
        plan: PLAN,
        books: [first, second].map((b) => ({ asin: b.asin, marketplaces: ['US'] })),
        sales: false,
      },
    ],
    rules: [{ id: 'health', kind: 'source_health', failures: 3, pausedFor: '4m' }],
  });
  sink = new CapturingSink();
  harness = createHarness({ sim: fx.sim, redis, prefix, config, sink });
  for (const id of targets) expect(await harness.poll(id)).toMatchObject({ status: 'ok', baseline: true });
});

afterEach(async () => {
  // Each test starts with a working key, no pause and no open episode.
  await fx.control.clearFaults();
  await fx.control.addKey({ key: KEY, workspace: WS, plan: PLAN });
  await resumeWorkspace(harness.deps, WS);
  for (const id of targets) await harness.poll(id).catch(() => undefined);
  sink.alerts.length = 0;
});

afterAll(async () => {
  await harness?.close();
});

/** The next book request is answered 429 with this code and Retry-After. */
const answer429 = (code: 'rate_limited' | 'quota_exceeded', seconds: number) =>
  fx.control.fault({ kind: 'status', status: 429, code, retryAfter: { seconds }, pathPrefix: '/v1/books' });
const workspaceAlerts = () => sink.alerts.filter((a) => a.subject.scope === 'workspace');
const [first, second] = [() => targets[0] ?? '', () => targets[1] ?? ''];

describe('a revoked key', () => {
  it('alerts at the first poll, once per episode across targets and re-checks, and recovery once', async () => {
    await fx.control.revoke(KEY);
    expect(await harness.poll(first())).toMatchObject({ status: 'error' });
    expect(workspaceAlerts()).toEqual([
      expect.objectContaining({ kind: 'source_health', severity: 'critical', ruleId: 'health' }),
    ]);
    expect(workspaceAlerts()[0]?.facts).toMatchObject({ scope: 'workspace', pauseReason: 'unauthorized' });
    // Other targets are deferred by the pause: no failure of theirs, no second alert.
    await expect(harness.poll(second())).rejects.toMatchObject({ name: 'PollDeferredError' });
    // The key is re-checked after each pause (15 min): still refused, still the same episode, and
    // no target's own streak (3 failures) alerts the same cause again.
    for (const target of [second(), first(), first()]) {
      await fx.control.advance(16 * 60_000);
      expect(await harness.poll(target)).toMatchObject({ status: 'error' });
    }
    expect(sink.ofKind('source_health')).toHaveLength(1);

    await fx.control.addKey({ key: KEY, workspace: WS, plan: PLAN });
    await fx.control.advance(16 * 60_000);
    expect(await harness.poll(first())).toMatchObject({ status: 'ok' });
    expect(await harness.poll(second())).toMatchObject({ status: 'ok' });
    const kinds = workspaceAlerts().map((a) => `${a.kind}:${a.status}`);
    expect(kinds).toEqual(['source_health:firing', 'source_recovered:resolved']);
    // The two alerts name one episode.
    const [fired, recovered] = workspaceAlerts();
    expect(factsOf(recovered)?.since).toBe(factsOf(fired)?.since);
  });
});

describe('a 429 with a huge Retry-After', () => {
  it('a per-minute limit pauses at most a few minutes, says so in an alert once, and resume lifts it', async () => {
    await answer429('rate_limited', 2_592_000);
    const now = fx.sim.clock.now();
    await expect(harness.poll(first())).rejects.toMatchObject({ name: 'PollDeferredError' });
    const usage = await harness.deps.budget.usage(WS);
    expect(usage.pauseReason).toBe('rate_limited');
    expect(usage.pausedUntilMs).toBeLessThanOrEqual(now + MAX_RATE_LIMIT_PAUSE_MS + 1_000);
    // 5 minutes is known at once to outlive `pausedFor: 4m`: one alert, not one per deferred poll.
    await expect(harness.poll(second())).rejects.toMatchObject({ name: 'PollDeferredError' });
    expect(workspaceAlerts().map((a) => a.kind)).toEqual(['source_health']);
    expect(workspaceAlerts()[0]?.facts).toMatchObject({ pauseReason: 'rate_limited' });

    const report = await resumeWorkspace(harness.deps, WS);
    expect(report.lifted).toMatchObject({ reason: 'rate_limited' });
    expect((await harness.deps.budget.usage(WS)).pausedUntilMs).toBeNull();
    expect(await harness.poll(first())).toMatchObject({ status: 'ok' });
    expect(workspaceAlerts().map((a) => a.kind)).toEqual(['source_health', 'source_recovered']);
  });

  it('a quota pause lasts until the month resets, not past it', async () => {
    await answer429('quota_exceeded', 40 * 86_400);
    const now = fx.sim.clock.now();
    await expect(harness.poll(first())).rejects.toMatchObject({ name: 'PollDeferredError' });
    const usage = await harness.deps.budget.usage(WS);
    expect(usage.pauseReason).toBe('quota_exceeded');
    expect(usage.pausedUntilMs).toBeLessThanOrEqual(utcBillingMonth(now).endMs + 1_000);
  });

  it('a short pause under the threshold raises nothing', async () => {
    await answer429('rate_limited', 30);
    await expect(harness.poll(first())).rejects.toMatchObject({ name: 'PollDeferredError' });
    await fx.control.advance(31_000);
    expect(await harness.poll(first())).toMatchObject({ status: 'ok' });
    expect(workspaceAlerts()).toEqual([]);
  });
});
