/**
 * Engine throughput: 1,000-keyword book snapshots per second through parse (JSON + zod, from
 * payload text prepared in advance; no HTTP), normalise, diff (`evaluate`, default rules, against
 * the previous observation), delivery enqueue (`QueueAlertSink` → BullMQ `addBulk`) and snapshot
 * commit (`RedisSnapshotStore.commit`), next to the floor measured in the same rounds: `JSON.parse`
 * of the same payload plus one raw BullMQ no-op job (`queue.add`, a Worker with a no-op processor),
 * at the same concurrency on the same Redis. A third contender is the whole `processPoll` as the
 * worker runs it (adds the budget gate, the baseline read and the health read and write).
 */
import { performance } from 'node:perf_hooks';
import { Queue, Worker } from 'bullmq';
import { PauseEpisodes } from '../src/budget/pause-episode.ts';
import { budgetGate, RedisRequestBudget } from '../src/budget/request-budget.ts';
import { type DeliverQueueData, QueueAlertSink } from '../src/deliver/enqueue.ts';
import type { KeywordsObservation, Observation } from '../src/model/observation.ts';
import { silentLogger } from '../src/ops/logger.ts';
import { fetchObservation } from '../src/poll/fetch.ts';
import { type PollDeps, processPoll } from '../src/poll/processor.ts';
import type { WatchTarget } from '../src/poll/targets.ts';
import { encodeRuleState } from '../src/rule-state/index.ts';
import { defaultRules } from '../src/rules/config.ts';
import { evaluate, type RuleState } from '../src/rules/engine.ts';
import { RedisSnapshotStore } from '../src/snapshot/store.ts';
import { systemClock } from '../src/util/clock.ts';
import type { BenchContext, BenchResult } from './lib/context.ts';
import { redisStages, stageCosts } from './lib/engine-stages.ts';
import { fmt, ms, table, times } from './lib/format.ts';
import { benchAsin, keywordList, keywordsPayload, nextSnapshot } from './lib/keywords.ts';
import { benchDialect, payloadClient } from './lib/payload-client.ts';
import { alternate, medianRatio, spread } from './lib/stats.ts';

const KEYWORDS = 1000;
const CONCURRENCY = 4; // the default workers.pollConcurrency
const GOAL = 2;

interface Book {
  asin: string;
  base: KeywordsObservation;
  latest: KeywordsObservation;
  /** This round's payloads and their observation times, prepared before the round's clock starts. */
  round: { text: string; at: number }[];
}

export async function run(ctx: BenchContext): Promise<BenchResult> {
  const books = ctx.quick ? 8 : 16;
  const perBook = ctx.quick ? 4 : 10;
  const rounds = ctx.quick ? 3 : 9;
  const rules = defaultRules();
  const dialect = benchDialect();
  const redis = ctx.redis();
  const prefix = ctx.prefix();
  const store = new RedisSnapshotStore({ redis, prefix });
  const deliverQueue = new Queue<DeliverQueueData>('deliver', { connection: redis, prefix });
  const floorQueue = new Queue('floor', { connection: redis, prefix });
  const sink = new QueueAlertSink(deliverQueue, () => [{ channelId: 'slack', hideLowStarText: false }]);
  let completed = 0;
  let onCompleted: (() => void) | undefined;
  const worker = new Worker('floor', async () => {}, { connection: redis, prefix, concurrency: CONCURRENCY });
  worker.on('completed', () => {
    completed++;
    onCompleted?.();
  });
  ctx.defer(() => worker.close());
  ctx.defer(() => floorQueue.close());
  ctx.defer(() => deliverQueue.close());

  const library: Book[] = Array.from({ length: books }, (_, i) => {
    const base = keywordList(1000 + i, KEYWORDS, benchAsin(i + 1));
    return { asin: base.asin, base, latest: base, round: [] };
  });
  const prepare = (round: number) => {
    for (const book of library) {
      book.round = [];
      for (let k = 0; k < perBook; k++) {
        book.latest = nextSnapshot(book.base, book.latest, round * 1_000 + k * 31 + book.asin.length);
        book.round.push({ text: dialect.speak(keywordsPayload(book.latest)), at: book.latest.observedAt });
      }
    }
  };
  const targetOf = (workspace: string, book: Book): WatchTarget => ({
    ref: { workspace, kind: 'keywords', id: `keywords/${book.asin}/US` },
    kind: 'keywords',
    asin: book.asin,
    marketplace: 'US',
    keywords: { top: KEYWORDS },
  });
  /** Runs `step(book, k)` for every prepared snapshot, books spread over CONCURRENCY lanes. */
  const lanes = async (step: (book: Book, k: number) => Promise<void>) => {
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_, lane) => {
        for (let b = lane; b < library.length; b += CONCURRENCY) {
          for (let k = 0; k < perBook; k++) await step(library[b]!, k);
        }
      }),
    );
  };
  const current = new Map<string, string>();
  const client = payloadClient((asin) => current.get(asin)!, undefined, dialect.contract);
  const signal = new AbortController().signal;

  // ---- contender: the engine pipeline -------------------------------------------------------
  const engineState = new Map<string, { observation: Observation; state: RuleState; seq: number }>();
  let alertsRaised = 0;
  const engineStep = async (book: Book, k: number) => {
    const { text, at } = book.round[k]!;
    const target = targetOf('bench-engine', book);
    current.set(book.asin, text);
    const { observation } = await fetchObservation(client, target, { signal, nowMs: at });
    const prev = engineState.get(book.asin);
    const ruleCtx = { workspace: 'bench-engine', targetId: target.ref.id, nowMs: at };
    const evaluation = evaluate(ruleCtx, rules, prev?.observation, observation, prev?.state);
    alertsRaised += evaluation.alerts.length;
    await sink.enqueue(evaluation.alerts);
    const seq = prev?.seq ?? 0;
    const ok = await store.commit(
      target.ref,
      { observation, ruleState: encodeRuleState(evaluation.state, observation), committedAt: at },
      seq,
    );
    if (!ok) throw new Error(`engine: commit of ${book.asin} lost its compare-and-set`);
    engineState.set(book.asin, { observation, state: evaluation.state, seq: seq + 1 });
  };

  // ---- contender: processPoll as the worker runs it -----------------------------------------
  const budget = new RedisRequestBudget({ redis, prefix, clock: systemClock });
  const gate = budgetGate(budget, 'bench-poll', { perMinute: 1_000_000, perMonth: 1e12 });
  const targets = new Map(library.map((book) => [`keywords/${book.asin}/US`, targetOf('bench-poll', book)]));
  const pollDeps: PollDeps = {
    clientFor: () => payloadClient((asin) => current.get(asin)!, gate, dialect.contract),
    store,
    budget,
    pauses: new PauseEpisodes(redis, prefix),
    registry: { target: (_ws, id) => targets.get(id), rules: () => rules },
    alerts: sink,
    clock: systemClock,
    logger: silentLogger(),
  };
  const pollStep = async (book: Book, k: number) => {
    const { text, at } = book.round[k]!;
    current.set(book.asin, text);
    const result = await processPoll(
      pollDeps,
      { workspace: 'bench-poll', targetId: `keywords/${book.asin}/US` },
      { signal, pollTimeMs: at },
    );
    if (result.status !== 'ok') throw new Error(`processPoll: ${JSON.stringify(result)}`);
  };

  // ---- contender: the floor ------------------------------------------------------------------
  const floorRun = async () => {
    const target = completed + books * perBook;
    const done = new Promise<void>((resolve) => {
      onCompleted = () => {
        if (completed >= target) resolve();
      };
    });
    await lanes(async (book, k) => {
      JSON.parse(book.round[k]!.text);
      await floorQueue.add('noop', {});
    });
    await done;
  };

  const timed = (fn: () => Promise<void>) => async () => {
    const start = performance.now();
    await fn();
    return (performance.now() - start) / (books * perBook);
  };
  const contenders = {
    floor: timed(floorRun),
    engine: timed(() => lanes(engineStep)),
    poll: timed(() => lanes(pollStep)),
  };
  // Warm-up: JIT, Lua script loading, the baseline commits and dictionaries; not recorded.
  prepare(0);
  for (const fn of Object.values(contenders)) await fn();
  alertsRaised = 0;
  const result = await alternate(contenders, rounds, { beforeRound: (round) => prepare(round + 1) });
  const perSnapshot = library.length * perBook;
  const stages = stageCosts(library[0]!, rules, ctx.quick);
  const redisSteps = await redisStages(library[1]!, rules, { store, sink, floorQueue }, ctx.quick ? 10 : 40);

  const floor = result.medians.floor!;
  const engine = result.medians.engine!;
  const poll = result.medians.poll!;
  const ratio = medianRatio(result.samples.engine!, result.samples.floor!);
  const pollRatio = medianRatio(result.samples.poll!, result.samples.floor!);
  const alertsPerSnapshot = alertsRaised / (rounds * perSnapshot);
  const rows = (['floor', 'engine', 'poll'] as const).map((name) => {
    const median = result.medians[name]!;
    return [
      {
        floor: 'floor: JSON.parse + raw BullMQ no-op job',
        engine: 'engine: parse + validate, normalise, evaluate, addBulk alerts, encode + commit',
        poll: 'processPoll: engine + budget gate, baseline read, health read/write',
      }[name],
      ms(median),
      fmt(1000 / median),
      times(name === 'floor' ? 1 : medianRatio(result.samples[name]!, result.samples.floor!)),
      `${fmt(spread(result.samples[name]!) * 100)}%`,
    ];
  });
  const stageRows = Object.entries(stages.medians).map(([name, us]) => [name, fmt(us, 1)]);
  const details = [
    `${library.length} books × ${KEYWORDS} keywords, ${perBook} snapshots per book per round, ${rounds} rounds (ABBA order), concurrency ${CONCURRENCY}; ` +
      `${fmt(alertsPerSnapshot, 1)} alerts per snapshot on average (default rules).`,
    '',
    table(
      [
        'contender',
        'ms / snapshot (median)',
        'snapshots / s',
        '× floor (median of round ratios)',
        'round spread',
      ],
      rows,
    ),
    '',
    'Single-threaded CPU cost of the synchronous stages (µs per 1,000-keyword snapshot, median of alternating rounds):',
    '',
    table(['stage', 'µs'], stageRows),
    '',
    `The Redis steps one snapshot at a time (ms, median of ${fmt(redisSteps.n)}; ${fmt(redisSteps.alerts, 1)} alerts a snapshot):`,
    '',
    table(
      ['step', 'ms'],
      Object.entries(redisSteps.medians).map(([name, value]) => [name, fmt(value, 2)]),
    ),
  ].join('\n');
  return {
    title: `Engine throughput (1,000-keyword snapshots${dialect.name === 'default' ? '' : `, contract ${dialect.name}`})`,
    summary: [
      {
        metric: 'engine time per snapshot',
        value: `${ms(engine)} (${fmt(1000 / engine)}/s)`,
        reference: `floor ${ms(floor)}`,
        ratio: times(ratio),
        goal: `≤ ${GOAL}× floor`,
        met: ratio <= GOAL,
      },
      {
        metric: 'whole processPoll per snapshot',
        value: `${ms(poll)} (${fmt(1000 / poll)}/s)`,
        reference: `floor ${ms(floor)}`,
        ratio: times(pollRatio),
      },
    ],
    details,
    data: {
      books: library.length,
      perBook,
      rounds,
      concurrency: CONCURRENCY,
      alertsPerSnapshot,
      ...result,
      stagesUs: stages,
    },
  };
}
