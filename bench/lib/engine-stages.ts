/**
 * Where an engine snapshot's time goes: the CPU-bound stages timed single-threaded, and the Redis
 * steps timed one at a time. Explains the engine benchmark's ratio; no goal of its own.
 */
import { performance } from 'node:perf_hooks';
import type { Queue } from 'bullmq';
import type { QueueAlertSink } from '../../src/deliver/enqueue.ts';
import type { TargetRef } from '../../src/model/observation.ts';
import { decodeRuleState, encodeRuleState } from '../../src/rule-state/index.ts';
import type { defaultRules } from '../../src/rules/config.ts';
import { evaluate } from '../../src/rules/engine.ts';
import { prepareCommit } from '../../src/snapshot/record.ts';
import type { RedisSnapshotStore } from '../../src/snapshot/store.ts';
import { type BookSeries, keywordsPayload, nextSnapshot } from './keywords.ts';
import { parseKeywordsPayload } from './payload-client.ts';
import { median, timeSync } from './stats.ts';

/** Single-threaded cost of the CPU-bound stages on one steady-state pair of snapshots. */
export function stageCosts(book: BookSeries, rules: ReturnType<typeof defaultRules>, quick: boolean) {
  const first = nextSnapshot(book.base, book.base, 7);
  const prev = nextSnapshot(book.base, first, 8);
  const next = nextSnapshot(book.base, prev, 9);
  const text = keywordsPayload(next);
  const ref: TargetRef = { workspace: 'bench-stage', kind: 'keywords', id: `keywords/${book.asin}/US` };
  const ruleCtx = (nowMs: number) => ({ workspace: ref.workspace, targetId: ref.id, nowMs });
  const s0 = evaluate(ruleCtx(first.observedAt), rules, undefined, first, undefined).state;
  const s1 = evaluate(ruleCtx(prev.observedAt), rules, first, prev, s0).state;
  const s2 = evaluate(ruleCtx(next.observedAt), rules, prev, next, s1).state;
  const stored = encodeRuleState(s1, prev);
  return timeSync(
    {
      'JSON.parse of the payload': () => JSON.parse(text),
      'JSON.parse + validation (zod envelope, loop items)': () => parseKeywordsPayload(text),
      'evaluate (default rules, steady state)': () =>
        evaluate(ruleCtx(next.observedAt), rules, prev, next, s1),
      'decode the stored rule state': () => decodeRuleState(stored, prev),
      'encode the commit (snapshot + rule-state bytes)': () =>
        prepareCommit(
          ref,
          { observation: next, ruleState: encodeRuleState(s2, next), committedAt: next.observedAt },
          2,
        ),
    },
    quick ? 20 : 50,
    quick ? 3 : 9,
  );
}

/**
 * The Redis steps of a snapshot timed one at a time (no overlap with other lanes): enqueueing its
 * alerts, committing it with its rule state, committing the same observation without one (a
 * twin target), and one raw `queue.add` for scale.
 */
export async function redisStages(
  book: BookSeries,
  rules: ReturnType<typeof defaultRules>,
  deps: { store: RedisSnapshotStore; sink: QueueAlertSink; floorQueue: Queue },
  n: number,
) {
  const ref = (id: string): TargetRef => ({ workspace: 'bench-stage', kind: 'keywords', id });
  const withState = ref(`keywords/${book.asin}/US`);
  const bare = ref(`keywords/${book.asin}/US/bare`);
  let prev = nextSnapshot(book.base, book.base, 500);
  let state = evaluate(
    { workspace: 'bench-stage', targetId: withState.id, nowMs: prev.observedAt },
    rules,
    undefined,
    prev,
    undefined,
  ).state;
  const samples: Record<string, number[]> = {
    "enqueue the snapshot's alerts (addBulk)": [],
    'commit with rule state': [],
    'commit without rule state': [],
    'one raw queue.add': [],
  };
  const time = async (name: string, fn: () => Promise<unknown>) => {
    const start = performance.now();
    await fn();
    samples[name]!.push(performance.now() - start);
  };
  let alerts = 0;
  await deps.store.commit(
    withState,
    { observation: prev, ruleState: encodeRuleState(state, prev), committedAt: prev.observedAt },
    0,
  );
  await deps.store.commit(bare, { observation: prev, ruleState: undefined, committedAt: prev.observedAt }, 0);
  for (let i = 1; i <= n; i++) {
    const next = nextSnapshot(book.base, prev, 500 + i);
    const ctx = { workspace: 'bench-stage', targetId: withState.id, nowMs: next.observedAt };
    const evaluation = evaluate(ctx, rules, prev, next, state);
    alerts += evaluation.alerts.length;
    await time("enqueue the snapshot's alerts (addBulk)", () => deps.sink.enqueue(evaluation.alerts));
    await time('commit with rule state', () =>
      deps.store.commit(
        withState,
        {
          observation: next,
          ruleState: encodeRuleState(evaluation.state, next),
          committedAt: next.observedAt,
        },
        i,
      ),
    );
    await time('commit without rule state', () =>
      deps.store.commit(bare, { observation: next, ruleState: undefined, committedAt: next.observedAt }, i),
    );
    await time('one raw queue.add', () => deps.floorQueue.add('noop', {}));
    prev = next;
    state = evaluation.state;
  }
  const medians = Object.fromEntries(Object.entries(samples).map(([name, xs]) => [name, median(xs)]));
  return { n, alerts: alerts / n, medians };
}
