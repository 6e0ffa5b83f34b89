import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { AnalyticsClient, BookKeywords } from '../../src/api/index.ts';
import { PauseEpisodes } from '../../src/budget/pause-episode.ts';
import { RedisRequestBudget } from '../../src/budget/request-budget.ts';
import type { Alert } from '../../src/model/alert.ts';
import type { KeywordsObservation } from '../../src/model/observation.ts';
import { createLogger } from '../../src/ops/logger.ts';
import { type PollDeps, processPoll } from '../../src/poll/processor.ts';
import type { WatchTarget } from '../../src/poll/targets.ts';
import { ruleSchema } from '../../src/rules/config.ts';
import { conditionsOf, evaluate } from '../../src/rules/engine.ts';
import { SnapshotKeys } from '../../src/snapshot/keys.ts';
import { decodeRecord } from '../../src/snapshot/record.ts';
import { RedisSnapshotStore } from '../../src/snapshot/store.ts';
import { systemClock } from '../../src/util/clock.ts';
import { factsOf } from '../helpers/alert-facts.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';

const prefix = testPrefix('rule-state');
const redis = testRedis(prefix);
const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 21);
const ASIN = 'B0CJ4XQ2ZK';
const rules = [
  ruleSchema.parse({ id: 'kw', kind: 'keyword_rank_drop', positionsLost: 5, sendResolved: true }),
  ruleSchema.parse({ id: 'health', kind: 'source_health', failures: 3 }),
];

function observation(at: number, ranks: Record<string, number | null>): KeywordsObservation {
  const list = Object.entries(ranks).map(([keyword, rank]) => ({ keyword, rank }));
  return { kind: 'keywords', observedAt: at, asin: ASIN, marketplace: 'US', ranks: list };
}

/** A poller over real Redis whose API answers with `answer`; keeps the alerts and the error logs. */
function poller(workspace: string) {
  let answer: KeywordsObservation | undefined;
  const client = {
    async getBookKeywords(asin: string) {
      const data: BookKeywords = {
        asin,
        data: (answer?.ranks ?? []).map((r) => ({ ...r, search_volume: 100, traffic_share: 0.01 })),
      };
      return { data, meta: { status: 200, rateLimit: {}, attempts: 1 } };
    },
  } as unknown as AnalyticsClient; // only getBookKeywords is reached for a keywords target
  const target: WatchTarget = {
    ref: { workspace, kind: 'keywords', id: `keywords/${ASIN}/US` },
    kind: 'keywords',
    asin: ASIN,
    marketplace: 'US',
    keywords: { top: 100 },
  };
  const alerts: Alert[] = [];
  const errors: string[] = [];
  const logs = new Writable({
    write(chunk, _encoding, done) {
      const line = JSON.parse(String(chunk)) as { level: number; msg: string };
      if (line.level >= 50) errors.push(line.msg);
      done();
    },
  });
  const store = new RedisSnapshotStore({ redis, prefix });
  const deps: PollDeps = {
    clientFor: () => client,
    store,
    budget: new RedisRequestBudget({ redis, prefix, clock: systemClock }),
    pauses: new PauseEpisodes(redis, prefix),
    registry: { target: () => target, rules: () => rules },
    alerts: { enqueue: async (batch) => void alerts.push(...batch) },
    clock: systemClock,
    logger: createLogger({ destination: logs }),
  };
  return {
    store,
    target,
    alerts,
    errors,
    poll(next: KeywordsObservation) {
      answer = next;
      const signal = new AbortController().signal;
      return processPoll(
        deps,
        { workspace, targetId: target.ref.id },
        { signal, pollTimeMs: next.observedAt },
      );
    },
    async rawState(): Promise<unknown> {
      const raw = await redis.getBuffer(new SnapshotKeys(prefix).snapshot(target.ref));
      return decodeRecord(raw!).ruleState;
    },
  };
}

const polls = [
  observation(T0, { 'cozy mystery': 4, cat: 9 }),
  observation(T0 + HOUR, { 'cozy mystery': 20, cat: 9 }),
  observation(T0 + 2 * HOUR, { 'cozy mystery': 21, cat: 9 }),
  observation(T0 + 3 * HOUR, { 'cozy mystery': 5, cat: 30 }),
];

describe('rule state through the poller', () => {
  it('reads a record of the previous version (JSON conditions) without alerting again, then stores bytes', async () => {
    // What the previous version committed after polls 0 and 1: the drop fired, the state keyed JSON.
    const ctx = (at: number) => ({ workspace: 'ws-up', targetId: 't', nowMs: at });
    const first = evaluate(ctx(T0), rules, undefined, polls[0]!, undefined);
    const fired = evaluate(ctx(T0 + HOUR), rules, polls[0], polls[1]!, first.state);
    expect(fired.alerts.map((a) => a.kind)).toEqual(['keyword_rank_drop']);
    const p = poller('ws-up');
    const legacy = { conditions: conditionsOf(fired.state) };
    await p.store.commit(
      p.target.ref,
      { observation: polls[1]!, ruleState: legacy, committedAt: T0 + HOUR },
      0,
    );
    expect(await p.rawState()).toEqual(JSON.parse(JSON.stringify(legacy)));

    expect(await p.poll(polls[2]!)).toMatchObject({
      status: 'ok',
      alerts: 0,
      baseline: false,
      committed: true,
    });
    expect(await p.rawState()).toBeInstanceOf(Uint8Array);
    expect(await p.poll(polls[3]!)).toMatchObject({ status: 'ok', alerts: 2 });
    // The recovery closes the episode that fired before the upgrade: its fingerprint, not a new one.
    const still = evaluate(ctx(T0 + 2 * HOUR), rules, polls[1], polls[2]!, fired.state);
    const unbroken = evaluate(ctx(T0 + 3 * HOUR), rules, polls[2], polls[3]!, still.state);
    expect(p.alerts.map((a) => a.fingerprint)).toEqual(unbroken.alerts.map((a) => a.fingerprint));
    expect(p.alerts.map((a) => `${a.kind} ${factsOf(a).keyword}`)).toEqual([
      'keyword_rank_recovered cozy mystery',
      'keyword_rank_drop cat',
    ]);
    expect(p.errors).toEqual([]);
  });

  it('an unreadable rule state: the poll is judged against the stored observation, with a health alert', async () => {
    const p = poller('ws-bad');
    const garbage = Buffer.from([1, 0xff, 0xff, 0xff]);
    await p.store.commit(p.target.ref, { observation: polls[0]!, ruleState: garbage, committedAt: T0 }, 0);
    // The drop against the stored observation is this poll's change: it must not be missed.
    expect(await p.poll(polls[1]!)).toMatchObject({
      status: 'ok',
      alerts: 2,
      baseline: false,
      committed: true,
    });
    expect(p.alerts.map((a) => `${a.kind} ${factsOf(a).status ?? factsOf(a).keyword}`)).toEqual([
      'source_health rule_state_unreadable',
      'keyword_rank_drop cozy mystery',
    ]);
    expect(factsOf(p.alerts[0])?.lastError).toMatch(/checksum mismatch/);
    expect(p.errors).toEqual([
      'stored rule state unreadable; judging against the stored observation with fresh state for what was lost',
    ]);
    // The state is readable again: the episode that fired goes on, and resolves.
    expect(await p.poll(polls[3]!)).toMatchObject({ status: 'ok', alerts: 2 });
    expect(p.alerts.slice(2).map((a) => `${a.kind} ${factsOf(a).keyword}`)).toEqual([
      'keyword_rank_recovered cozy mystery',
      'keyword_rank_drop cat',
    ]);
    expect(p.errors).toHaveLength(1);
  });

  it('a partly unreadable state keeps what can be read: a firing keyword still resolves, the others judge afresh', async () => {
    // The previous version's JSON state after polls 0 and 1 ("cozy mystery" firing), one condition damaged.
    const ctx = (at: number) => ({ workspace: 'ws-part', targetId: 't', nowMs: at });
    const first = evaluate(ctx(T0), rules, undefined, polls[0]!, undefined);
    const fired = evaluate(ctx(T0 + HOUR), rules, polls[0], polls[1]!, first.state);
    const legacy = JSON.parse(JSON.stringify({ conditions: conditionsOf(fired.state) }));
    legacy.conditions[`kw|${ASIN}|US|cat`] = { phase: 'clear', baseline: 'nine' };
    const p = poller('ws-part');
    await p.store.commit(
      p.target.ref,
      { observation: polls[1]!, ruleState: legacy, committedAt: T0 + HOUR },
      0,
    );
    expect(await p.poll(polls[3]!)).toMatchObject({ status: 'ok', alerts: 3, baseline: false });
    expect(p.alerts.map((a) => `${a.kind} ${factsOf(a).keyword ?? factsOf(a).status}`)).toEqual([
      'source_health rule_state_unreadable',
      'keyword_rank_recovered cozy mystery',
      'keyword_rank_drop cat',
    ]);
    expect(factsOf(p.alerts[0])?.lastError).toMatch(/legacy condition kw\|B0CJ4XQ2ZK\|US\|cat is malformed/);
  });

  it('an answer that only reshuffles its keywords keeps the stored order and dictionary, and still alerts', async () => {
    const p = poller('ws-order');
    const dictionaries = async () =>
      (await redis.keys(`${prefix}:kwdict:*`)).filter((key) => key.includes('ws-order')).length;
    expect(await p.poll(observation(T0, { 'cozy mystery': 4, cat: 9, tea: 30 }))).toMatchObject({
      status: 'ok',
      baseline: true,
    });
    expect(await dictionaries()).toBe(1);
    // Traffic shares moved: the same keywords in another order, and "cat" fell.
    expect(await p.poll(observation(T0 + HOUR, { tea: 30, cat: 40, 'cozy mystery': 4 }))).toMatchObject({
      status: 'ok',
      alerts: 1,
    });
    expect(p.alerts.map((a) => `${a.kind} ${factsOf(a).keyword}`)).toEqual(['keyword_rank_drop cat']);
    expect(await dictionaries()).toBe(1);
    const stored = await p.store.get(p.target.ref);
    expect(stored?.observation.kind === 'keywords' && stored.observation.ranks.map((r) => r.keyword)).toEqual(
      ['cozy mystery', 'cat', 'tea'],
    );
    expect(p.errors).toEqual([]);
  });
});
