/**
 * What `shelfwatch status` shows, gathered from Redis only (no API request is spent): budgets and
 * the plan's projection, poll schedules and outcomes, channel health, dead letters, queue depths.
 * Times are ms in the runtime's clock (BullMQ's real times are translated).
 */
import type { JobType, Queue } from 'bullmq';
import { pollLimits } from '../budget/limits.ts';
import type { Plan } from '../budget/planner.ts';
import type { PauseReason, RedisRequestBudget } from '../budget/request-budget.ts';
import type { ShelfwatchConfig } from '../config/schema.ts';
import type { ChannelHealth } from '../deliver/channel-health.ts';
import { countDeadLetters } from '../deliver/dead-letters.ts';
import type { DeliverQueueData } from '../deliver/enqueue.ts';
import type { TargetKind } from '../model/observation.ts';
import type { PollJobData } from '../poll/processor.ts';
import type { ConfigTargetRegistry } from '../poll/registry.ts';
import type { SilenceStore } from '../silence/store.ts';
import { type SilenceView, silenceViews } from '../silence/view.ts';
import type { SnapshotStore, TargetHealth } from '../snapshot/store.ts';
import { type Clock, clockTimeOfReal } from '../util/clock.ts';
import { DAY_MS } from '../util/time-units.ts';
import type { RedisConnection } from './redis-connection.ts';
import { type ShardReach, shardReachability } from './shard-health.ts';
import type { ShardParts } from './shard-parts.ts';
import { bookTitlesByAsin, targetNames } from './target-names.ts';

/**
 * What the status reads, all of it in Redis: the process's runtime (src/app/runtime.ts) has these
 * parts, and this module needs no more of it.
 */
export interface StatusSources {
  config: ShelfwatchConfig;
  clock: Clock;
  budget: RedisRequestBudget;
  store: Pick<SnapshotStore, 'getHealth' | 'get'>;
  registry: ConfigTargetRegistry;
  pollQueue: Queue<PollJobData>;
  deliverQueue: Queue<DeliverQueueData>;
  channelHealth: ChannelHealth;
  silences: SilenceStore;
  /** Asked whether each shard's node answers (with more than one shard) before anything is read. */
  redis: RedisConnection;
  shards: readonly Pick<ShardParts, 'index' | 'prefix' | 'workspaces' | 'pollQueue' | 'deliverQueue'>[];
  plans(workspaces?: readonly string[]): Promise<Map<string, Plan>>;
  /** When Redis was last found to have lost shelfwatch's state (state-loss.ts), or null. */
  stateLostAt(): Promise<number | null>;
}

export interface TargetStatus {
  id: string;
  kind: TargetKind;
  /** What people call it: the book's title (book, keywords) or the campaign's name, when known. */
  name: string | null;
  /** When its scheduler runs next; null when no scheduler exists (`shelfwatch run` has not reconciled). */
  nextPollAtMs: number | null;
  everyMs: number | null;
  lastOutcome: TargetHealth['lastOutcome'];
  lastPollAtMs: number | null;
  consecutiveFailures: number;
  lastError: string | null;
}

export interface WorkspaceStatus {
  id: string;
  plan: { name: string; perMinute: number; perMonth: number };
  reserve: number;
  minute: { used: number; limit: number; left: number };
  month: {
    /** `YYYY-MM`, UTC. */
    label: string;
    used: number;
    limit: number;
    left: number;
    /** Where background polls stop; the rest is the reserve for interactive commands. */
    pollCeiling: number;
    resetsAtMs: number;
  };
  /** This month's use so far plus what the current plan will spend until the month ends. */
  projectedMonthEnd: number;
  planFits: boolean;
  /** Null when not paused; `untilMs` null means until someone resumes it (a revoked key). */
  pause: { reason: PauseReason | null; untilMs: number | null } | null;
  targets: TargetStatus[];
}

export interface ChannelStatus {
  id: string;
  type: string;
  /** Why the channel was disabled after a permanent refusal; null when it is enabled. */
  disabledReason: string | null;
  deadLetters: number;
}

const COUNTED: JobType[] = ['waiting', 'active', 'delayed', 'prioritized', 'failed'];

export interface StatusReport {
  generatedAtMs: number;
  /** When a process last found that Redis had lost shelfwatch's state; null when none is recorded. */
  stateLostAtMs: number | null;
  workspaces: WorkspaceStatus[];
  /**
   * Each shard and whether its Redis node answers (one entry with one shard). The workspaces of a
   * shard that does not answer are in `waiting`, not in `workspaces`; with the home shard (0) down,
   * channels and silences (kept there) are not read and show empty.
   */
  shards: ShardReach[];
  waiting: { workspace: string; shard: number; prefix: string; error: string | null }[];
  channels: ChannelStatus[];
  deadLetters: number;
  /** Jobs per state in each queue. */
  queues: { poll: Record<string, number>; deliver: Record<string, number> };
  /** Silences in force or yet to start, and the alerts silenced (each once) in the last 24 hours. */
  silences: {
    current: SilenceView[];
    silencedLastDay: number;
    recent: { title: string; silenceId: string }[];
  };
}

/** Titles of recently silenced alerts the status shows (the rest are counted). */
const RECENT_SHOWN = 5;

async function silenceStatus(runtime: StatusSources, now: number): Promise<StatusReport['silences']> {
  const [all, hits, lastDay] = await Promise.all([
    runtime.silences.all(),
    runtime.silences.hits(),
    runtime.silences.silencedBetween(now - DAY_MS, now + 1),
  ]);
  return {
    current: silenceViews(all, hits, now, await bookTitlesByAsin(runtime)).filter(
      (v) => v.state !== 'expired',
    ),
    silencedLastDay: lastDay.length,
    recent: lastDay.slice(0, RECENT_SHOWN).map((r) => ({ title: r.alert.title, silenceId: r.silenceId })),
  };
}

type StatusShard = StatusSources['shards'][number];

async function nextPolls(
  runtime: StatusSources,
  shards: readonly StatusShard[],
): Promise<Map<string, { nextMs: number | null; everyMs: number | null }>> {
  const byTarget = new Map<string, { nextMs: number | null; everyMs: number | null }>();
  const lists = await Promise.all(shards.map((shard) => shard.pollQueue.getJobSchedulers(0, -1)));
  for (const scheduler of lists.flat()) {
    const data = scheduler.template?.data;
    if (data === undefined) continue;
    byTarget.set(`${data.workspace}\u0000${data.targetId}`, {
      // BullMQ keeps real time; the plan and the health are in the runtime's clock.
      nextMs: scheduler.next === undefined ? null : clockTimeOfReal(runtime.clock, scheduler.next),
      everyMs: scheduler.every ?? null,
    });
  }
  return byTarget;
}

/** Job counts of every shard's queue, added up. */
async function jobCounts(queues: readonly Queue[]): Promise<Record<string, number>> {
  const all = await Promise.all(queues.map((queue) => queue.getJobCounts(...COUNTED)));
  const sum: Record<string, number> = {};
  for (const counts of all)
    for (const [state, n] of Object.entries(counts)) sum[state] = (sum[state] ?? 0) + n;
  return sum;
}

async function deadLettersOf(shards: readonly StatusShard[]): Promise<Map<string, number>> {
  const sum = new Map<string, number>();
  for (const counts of await Promise.all(shards.map((shard) => countDeadLetters(shard.deliverQueue))))
    for (const [channel, n] of counts) sum.set(channel, (sum.get(channel) ?? 0) + n);
  return sum;
}

/**
 * Which shards answer. With one shard there is nothing to tell apart: its one node is the whole
 * Redis, which the command has already connected to.
 */
async function reachShards(runtime: StatusSources): Promise<ShardReach[]> {
  if (runtime.shards.length > 1) return shardReachability(runtime);
  return runtime.shards.map((shard) => ({
    index: shard.index,
    prefix: shard.prefix,
    workspaces: shard.workspaces,
    reachable: true,
    error: null,
  }));
}

export async function gatherStatus(runtime: StatusSources): Promise<StatusReport> {
  const now = runtime.clock.now();
  const shards = await reachShards(runtime);
  const down = new Map(shards.filter((s) => !s.reachable).map((s) => [s.index, s]));
  const up = runtime.shards.filter((shard) => !down.has(shard.index));
  const homeUp = !down.has(0);
  const waiting = [...down.values()].flatMap((s) =>
    s.workspaces.map((workspace) => ({ workspace, shard: s.index, prefix: s.prefix, error: s.error })),
  );
  const waits = new Set(waiting.map((w) => w.workspace));
  const answering = runtime.config.workspaces.filter((ws) => !waits.has(ws.id));
  const [plans, schedules, deadLetters, pollCounts, deliverCounts, stateLostAtMs] = await Promise.all([
    runtime.plans(answering.map((ws) => ws.id)),
    nextPolls(runtime, up),
    deadLettersOf(up),
    jobCounts(up.map((shard) => shard.pollQueue)),
    jobCounts(up.map((shard) => shard.deliverQueue)),
    homeUp ? runtime.stateLostAt() : Promise.resolve(null),
  ]);
  const workspaces: WorkspaceStatus[] = [];
  for (const ws of answering) {
    const usage = await runtime.budget.usage(ws.id, {
      perMinute: ws.plan.perMinute,
      perMonth: ws.plan.perMonth,
    });
    const plan = plans.get(ws.id);
    // All at once: ioredis pipelines them, where one by one a 2,000-target account took 0.5 s.
    const registered = runtime.registry.all(ws.id);
    const healths = await Promise.all(registered.map((target) => runtime.store.getHealth(target.ref)));
    const names = await targetNames(runtime.store, registered);
    const targets: TargetStatus[] = registered.map((target, i) => {
      const health = healths[i] as TargetHealth;
      const schedule = schedules.get(`${ws.id}\u0000${target.ref.id}`);
      return {
        id: target.ref.id,
        kind: target.kind,
        name: names.get(target.ref.id) ?? null,
        nextPollAtMs: schedule?.nextMs ?? null,
        everyMs: schedule?.everyMs ?? null,
        lastOutcome: health.lastOutcome,
        lastPollAtMs: health.lastPollAt,
        consecutiveFailures: health.consecutiveFailures,
        lastError: health.lastError,
      };
    });
    workspaces.push({
      id: ws.id,
      plan: { name: ws.plan.name, perMinute: ws.plan.perMinute, perMonth: ws.plan.perMonth },
      reserve: ws.reserve,
      minute: { used: usage.minuteUsed, limit: ws.plan.perMinute, left: usage.minuteRemaining ?? 0 },
      month: {
        label: usage.month,
        used: usage.monthUsed,
        limit: ws.plan.perMonth,
        left: usage.monthRemaining ?? 0,
        pollCeiling: pollLimits(ws).monthCeiling ?? ws.plan.perMonth,
        resetsAtMs: usage.monthResetAtMs,
      },
      projectedMonthEnd: usage.monthUsed + (plan?.projectedUse ?? 0),
      planFits: plan?.fits ?? true,
      pause:
        usage.pausedUntilMs === null
          ? null
          : {
              reason: usage.pauseReason,
              untilMs: Number.isFinite(usage.pausedUntilMs) ? usage.pausedUntilMs : null,
            },
      targets,
    });
  }
  const channels: ChannelStatus[] = [];
  // Channel state is kept on the home shard: not read while it does not answer.
  for (const channel of homeUp ? runtime.config.channels : []) {
    channels.push({
      id: channel.id,
      type: channel.type,
      disabledReason: await runtime.channelHealth.disabledReason(channel.id),
      deadLetters: deadLetters.get(channel.id) ?? 0,
    });
  }
  // Dead letters of channels no longer in the config still count: they are still in Redis.
  let total = 0;
  for (const count of deadLetters.values()) total += count;
  return {
    generatedAtMs: now,
    stateLostAtMs,
    workspaces,
    shards,
    waiting,
    channels,
    deadLetters: total,
    queues: { poll: pollCounts, deliver: deliverCounts },
    silences: homeUp ? await silenceStatus(runtime, now) : { current: [], silencedLastDay: 0, recent: [] },
  };
}
