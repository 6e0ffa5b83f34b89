/**
 * Start-up: reconciling the poll job schedulers for 10,000 targets (5,000 books × book and
 * keywords) from the real plan (`planWorkspace` → `schedulesFromPlan` → `reconcilePollSchedulers`),
 * on an empty queue, then again unchanged, then with every cadence 10% longer (an upsert each,
 * keeping its phase), next to a floor of 10,000 raw `queue.add` calls on another fresh queue, in
 * alternating rounds on the same Redis. Reconcile runs its upserts 16 at a time.
 */
import { performance } from 'node:perf_hooks';
import { Queue } from 'bullmq';
import { reconcilePollSchedulers } from '../src/jobs/poll-schedulers.ts';
import { silentLogger } from '../src/ops/logger.ts';
import { ConfigTargetRegistry } from '../src/poll/registry.ts';
import { planWorkspace, schedulesFromPlan } from '../src/poll/schedule.ts';
import { systemClock } from '../src/util/clock.ts';
import type { BenchContext, BenchResult } from './lib/context.ts';
import { fmt, table, times } from './lib/format.ts';
import { booksConfig } from './lib/month.ts';
import { alternate, median, medianRatio, spread } from './lib/stats.ts';

export async function run(ctx: BenchContext): Promise<BenchResult> {
  const books = ctx.quick ? 500 : 5_000;
  const rounds = ctx.quick ? 2 : 3;
  const redis = ctx.redis();
  const prefix = ctx.prefix();
  const config = booksConfig(ctx.redisUrl, prefix, books);
  const ws = config.workspaces[0]!;
  const targets = new ConfigTargetRegistry(config).all('bench');
  const plan = planWorkspace(ws, targets, new Map(), 0, Date.now());
  // First runs a minute or more away: a scheduler due within seconds of a reconcile is held for the
  // next one (repeatFor's 'due'), and this benchmark times updating every one of them.
  const desired = schedulesFromPlan('bench', plan, systemClock).map((want) => ({
    ...want,
    firstRunDelayMs: 60_000 + (want.firstRunDelayMs ?? 0),
  }));
  const n = desired.length;
  // Past the hysteresis band (5%), so every scheduler is upserted.
  const longer = desired.map((want) => ({ ...want, everyMs: Math.round(want.everyMs * 1.1) }));
  const logger = silentLogger();
  const unchanged: number[] = [];
  const changed: number[] = [];
  const reports: unknown[] = [];

  const contenders = {
    floor: async (round: number) => {
      const queue = new Queue(`floor-${round}`, { connection: redis, prefix });
      const start = performance.now();
      for (const want of desired) await queue.add('poll', want.data);
      const ms = performance.now() - start;
      await queue.close();
      return ms;
    },
    reconcile: async (round: number) => {
      const queue = new Queue(`poll-${round}`, { connection: redis, prefix });
      const reconcile = (wanted = desired) =>
        reconcilePollSchedulers({
          queue,
          redis,
          lockKey: `${prefix}:lock-${round}`,
          desired: wanted,
          logger,
        });
      const start = performance.now();
      const first = await reconcile();
      const empty = performance.now() - start;
      const again = performance.now();
      const second = await reconcile();
      unchanged.push(performance.now() - again);
      const before = performance.now();
      const third = await reconcile(longer);
      changed.push(performance.now() - before);
      reports.push({ first, second, third });
      if (first.created !== n || second.unchanged !== n || third.updated !== n) {
        throw new Error(
          `reconcile did not create, keep and update ${n}: ${JSON.stringify({ first, second, third })}`,
        );
      }
      await queue.close();
      return empty;
    },
  };
  const result = await alternate(contenders, rounds);
  const floor = result.medians.floor!;
  const empty = result.medians.reconcile!;
  const same = median(unchanged);
  const moved = median(changed);
  const ratio = medianRatio(result.samples.reconcile!, result.samples.floor!);
  const unchangedRatio = medianRatio(unchanged, result.samples.floor!);
  const changedRatio = medianRatio(changed, result.samples.floor!);
  const row = (name: string, samples: number[], r: number) => [
    name,
    fmt(median(samples)),
    fmt((median(samples) * 1000) / n),
    times(r),
    `${fmt(spread(samples) * 100)}%`,
  ];
  const details = [
    `${fmt(n)} schedulers (${fmt(books)} books × book + keywords targets), ${rounds} alternating rounds, a fresh queue each time.`,
    '',
    table(
      ['contender', 'ms (median)', 'µs / target', '× floor', 'round spread'],
      [
        row(`floor: ${fmt(n)} × queue.add`, result.samples.floor!, 1),
        row('reconcile, empty queue (upsert each)', result.samples.reconcile!, ratio),
        row('reconcile again, unchanged', unchanged, unchangedRatio),
        row('reconcile, every cadence 10% longer (upsert each)', changed, changedRatio),
      ],
    ),
  ].join('\n');
  return {
    title: `Start-up: reconciling ${fmt(n)} job schedulers`,
    summary: [
      {
        metric: `reconcile ${fmt(n)} schedulers, empty queue`,
        value: `${fmt(empty / 1000, 1)} s`,
        reference: `floor ${fmt(floor / 1000, 1)} s (${fmt(n)} × queue.add)`,
        ratio: times(ratio),
      },
      {
        metric: `reconcile ${fmt(n)} schedulers, unchanged`,
        value: `${fmt(same / 1000, 2)} s`,
        reference: `floor ${fmt(floor / 1000, 1)} s`,
        ratio: times(unchangedRatio),
      },
      {
        metric: `reconcile ${fmt(n)} schedulers, every cadence changed`,
        value: `${fmt(moved / 1000, 2)} s`,
        reference: `floor ${fmt(floor / 1000, 1)} s`,
        ratio: times(changedRatio),
      },
    ],
    details,
    data: { schedulers: n, rounds, ...result, unchanged, changed, reports },
  };
}
