/**
 * One simulated month of one workspace: the simulator (own process) on an accelerated clock, and
 * on this side a real Runtime (planner, Redis budget, API client, snapshot store, rules) on an
 * `acceleratedClock` with the same start and speed, both read from the machine's monotonic clock.
 *
 * Polls are driven by a loop, not BullMQ job schedulers: a scheduler's `every` is real time with a
 * 1 s floor (schedulesFromPlan), so at thousands× speed an hourly cadence would become hours of
 * sim time. The loop reproduces what `shelfwatch run` does at 1×, step for step:
 * - every 10 min (the Runtime's re-plan interval) the plan is recomputed from learned costs and the
 *   month's use (`planWorkspace`, the inputs Runtime.plans() reads) and turned into schedules
 *   (`schedulesFromPlan`);
 * - like `reconcileSchedulers`, each wanted schedule goes through `repeatFor` (the same function):
 *   a new scheduler starts at `firstRunDelayMs` (< 5 min) from now; a cadence within the hysteresis
 *   band, or unchanged, is left alone; a changed one is upserted with BullMQ's semantics (the
 *   pending iteration dropped, the next at `startDate`), which `repeatFor` places at the last run +
 *   the new cadence, or within the first-run spread if that is already past;
 * - like a job scheduler with `every`, the next iteration is the previous one + cadence, and
 *   intervals already past are not run late (they are counted as lost to lag);
 * - at most `pollConcurrency` polls run at once, and a budget deferral is retried at its time
 *   unless that is more than 15 min away (the poll worker's `maxDeferMs`).
 */

import { Runtime } from '../../src/app/runtime.ts';
import type { Plan } from '../../src/budget/planner.ts';
import { parseConfig } from '../../src/config/load.ts';
import type { ShelfwatchConfig } from '../../src/config/schema.ts';
import { repeatFor } from '../../src/jobs/schedulers.ts';
import { DeferredError } from '../../src/model/deferred.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { type PollDeps, type PollResult, processPoll } from '../../src/poll/processor.ts';
import { planWorkspace, schedulesFromPlan } from '../../src/poll/schedule.ts';
import { SimControlClient } from '../../src/sim/index.ts';
import { acceleratedClock, type Clock } from '../../src/util/clock.ts';
import { benchAsin } from './keywords.ts';
import { EventScript, type PollInfo } from './month-events.ts';
import { monotonicMs, type SimProcess } from './sim-process.ts';

const MINUTE = 60_000;
const REPLAN_EVERY_MS = 10 * MINUTE;
const MAX_DEFER_MS = 15 * MINUTE;

export interface MonthRun {
  runtime: Runtime;
  clock: Clock;
  /**
   * `lagged`: intervals that passed without a poll because the loop ran late (real lag);
   * `upserts`: cadence changes applied to a scheduler (each an upsert);
   * `restarts`: those whose next run was set within 5 min of now (overdue at the new cadence;
   *   before phase keeping, every upsert; results of that time have no `upserts`);
   * `held`: re-plans that left a scheduler alone because its cadence was within the hysteresis band.
   */
  polls: {
    ok: number;
    deferred: number;
    skipped: number;
    failed: number;
    duplicate: number;
    lagged: number;
    upserts: number;
    restarts: number;
    held: number;
  };
  /** Real ms each poll started after its scheduled time (converted to real), and its run time. */
  lagRealMs: number[];
  pollRealMs: number[];
  /** Requests of the polls that finished (their answers used); the rest of what was sent was wasted. */
  requestsUsed: number;
  cadences: Map<string, number>;
  events: EventScript;
  realSeconds: number;
}

interface Slot {
  targetId: string;
  every: number;
  /** Where the iterations are anchored: the scheduler's start. */
  anchor: number;
  /** When the next poll may run (sim ms). */
  next: number;
  /** Its poll time: the iteration's time, kept across a deferral as the worker keeps a job's time. */
  pollTime: number;
  busy: boolean;
  /** Bumped by each upsert, so a poll in flight does not overwrite the upsert it raced with. */
  version: number;
  /** A poll has started: BullMQ's iteration count is past 1. */
  ran: boolean;
}

/** The first iteration of the slot strictly after `t`. */
function iterationAfter(slot: Slot, t: number): number {
  return slot.anchor + (Math.floor((t - slot.anchor) / slot.every) + 1) * slot.every;
}

/**
 * The slot as `getJobSchedulers()` would report it. BullMQ schedules the next iteration when one
 * starts, so while a poll runs (or waits out a deferral) `next` is the iteration after its own.
 */
function existingOf(slot: Slot) {
  const pending = slot.busy || slot.next !== slot.pollTime ? iterationAfter(slot, slot.pollTime) : slot.next;
  return { every: slot.every, next: pending, iterationCount: slot.ran ? 2 : 1 };
}

export async function runMonth(options: {
  config: ShelfwatchConfig;
  sim: SimProcess;
  speed: number;
  monthStart: number;
  monthEnd: number;
  eventBooks: { asin: string; marketplace: string }[];
  random: () => number;
  log: (message: string) => void;
}): Promise<MonthRun> {
  const { sim, speed, monthStart, monthEnd } = options;
  const mono = monotonicMs();
  const simAtMono = sim.simMs + (mono - sim.monoMs) * speed;
  const clock = acceleratedClock(simAtMono, speed, { now: monotonicMs });
  /** The monotonic real time at which the sim clock reads `simMs`. */
  const realOf = (simMs: number) => mono + (simMs - simAtMono) / speed;
  /** Schedules in sim ms: the loop is the scheduler, so nothing is translated to real time. */
  const unitClock: Clock = { now: () => clock.now(), speed: 1, fromReal: (ms) => ms };
  const runtime = new Runtime({
    config: options.config,
    logger: silentLogger(),
    version: 'bench',
    clock,
    // The quick retry's real-time delay would be hours of sim time; the simulator injects no faults.
    client: { transientRetryDelayMs: 0 },
  });
  await runtime.connect();
  const ws = options.config.workspaces[0]!;
  const workspace = ws.id;
  const targets = runtime.registry.all(workspace);
  const control = new SimControlClient(sim, { connections: 2 });
  const slots = new Map<string, Slot>();
  const cadences = new Map<string, number>();
  const events = new EventScript({
    control,
    books: options.eventBooks,
    cadenceOf: (id) => cadences.get(id) ?? 3_600_000,
    now: () => clock.now(),
    monotonic: monotonicMs,
    random: options.random,
  });
  const run: MonthRun = {
    runtime,
    clock,
    polls: {
      ok: 0,
      deferred: 0,
      skipped: 0,
      failed: 0,
      duplicate: 0,
      lagged: 0,
      upserts: 0,
      restarts: 0,
      held: 0,
    },
    lagRealMs: [],
    pollRealMs: [],
    requestsUsed: 0,
    cadences,
    events,
    realSeconds: 0,
  };
  /** Runtime.plans() for the workspace, with its health reads in parallel instead of one by one. */
  const currentPlan = async (): Promise<Plan> => {
    const costs = new Map(
      await Promise.all(
        targets.map(async (t) => [t.ref.id, (await runtime.store.getHealth(t.ref)).costPerPoll] as const),
      ),
    );
    const usage = await runtime.budget.usage(workspace);
    return planWorkspace(ws, targets, costs, usage.monthUsed, clock.now());
  };
  const reconcile = async () => {
    const plan = await currentPlan();
    const now = clock.now();
    for (const want of schedulesFromPlan(workspace, plan, unitClock)) {
      const id = want.data.targetId;
      const slot = slots.get(id);
      const repeat = { every: want.everyMs, firstRunDelayMs: want.firstRunDelayMs, exact: want.exact };
      const decision = repeatFor(repeat, slot === undefined ? undefined : existingOf(slot), now);
      if (slot !== undefined && !decision.changed) {
        if (decision.reason === 'in-band') run.polls.held++;
        cadences.set(id, slot.every);
        continue;
      }
      cadences.set(id, want.everyMs);
      const start = 'startDate' in decision.repeat ? (decision.repeat.startDate ?? now) : now;
      if (slot === undefined) {
        const fresh = { every: want.everyMs, anchor: start, next: start, pollTime: start, busy: false };
        slots.set(id, { targetId: id, ...fresh, version: 0, ran: false });
        continue;
      }
      run.polls.upserts++;
      // Overdue at the new cadence: within the first-run spread, where before every upsert landed.
      if (decision.reason === 'overdue') run.polls.restarts++;
      // BullMQ's upsert drops the pending iteration (a deferred job would still run once there;
      // deferrals are rare here) and starts again at `startDate`.
      slot.every = want.everyMs;
      slot.anchor = slot.next = slot.pollTime = start;
      slot.version++;
    }
  };

  // The plan is for the month the clock is in: start it only once the month has begun.
  const early = monthStart - clock.now();
  if (early > 0) await new Promise((resolve) => setTimeout(resolve, early / speed));
  else options.log(`  the month started ${Math.round(-early / MINUTE)} sim minutes before the loop`);
  await reconcile();
  await events.setUp();

  const concurrency = options.config.workers.pollConcurrency;
  let inflight = 0;
  let wake: (() => void) | undefined;
  const signal = new AbortController().signal;
  const poll = async (slot: Slot) => {
    slot.ran = true;
    const version = slot.version;
    const pollTimeMs = slot.pollTime;
    const info: PollInfo = {
      targetId: slot.targetId,
      scheduledAt: slot.next,
      cadenceMs: slot.every,
      startReal: monotonicMs(),
    };
    run.lagRealMs.push(info.startReal - realOf(info.scheduledAt));
    const deps: PollDeps = {
      ...runtime.pollDeps,
      alerts: {
        enqueue: async (alerts) => {
          const at = clock.now();
          for (const alert of alerts) events.onAlert(alert, info, at);
        },
      },
    };
    let result: PollResult | undefined;
    try {
      result = await processPoll(deps, { workspace, targetId: slot.targetId }, { signal, pollTimeMs });
    } catch (error) {
      if (!(error instanceof DeferredError)) throw error;
      if (slot.version !== version) return;
      const now = clock.now();
      if (error.retryAtMs - now <= MAX_DEFER_MS) {
        run.polls.deferred++;
        slot.next = Math.max(now, error.retryAtMs);
        return;
      }
      run.polls.skipped++;
    }
    if (result !== undefined) {
      run.pollRealMs.push(monotonicMs() - info.startReal);
      if ('requests' in result) run.requestsUsed += result.requests;
      if (result.status === 'ok') {
        run.polls.ok++;
        events.onPollDone(info);
      } else if (result.status === 'duplicate') run.polls.duplicate++;
      else run.polls.failed++;
    }
    if (slot.version !== version) return;
    const due = iterationAfter(slot, pollTimeMs);
    const next = iterationAfter(slot, Math.max(pollTimeMs, clock.now() - 1));
    run.polls.lagged += Math.round((next - due) / slot.every);
    slot.next = slot.pollTime = next;
  };

  const realStart = monotonicMs();
  let nextReplan = monthStart + REPLAN_EVERY_MS;
  let failure: unknown;
  while (failure === undefined) {
    const now = clock.now();
    if (now >= monthEnd) break;
    await events.tick(now);
    if (now >= nextReplan) {
      await reconcile();
      nextReplan += REPLAN_EVERY_MS;
    }
    let soonest = Math.min(events.nextDue(), nextReplan, monthEnd);
    for (const slot of slots.values()) {
      if (slot.busy) continue;
      if (slot.next > now) {
        soonest = Math.min(soonest, slot.next);
        continue;
      }
      // Due but no free lane: the poll that frees one wakes the loop.
      if (inflight >= concurrency) continue;
      slot.busy = true;
      inflight++;
      void poll(slot)
        .catch((error: unknown) => {
          failure = error;
        })
        .finally(() => {
          slot.busy = false;
          inflight--;
          wake?.();
        });
    }
    const delayReal = Math.max(0, (soonest - clock.now()) / speed);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.min(delayReal, 1_000));
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    wake = undefined;
  }
  while (inflight > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  if (failure !== undefined) throw failure;
  run.realSeconds = (monotonicMs() - realStart) / 1000;
  await control.close();
  return run;
}

/** A parsed config, or a thrown list of problems. */
export function configOrThrow(raw: unknown): ShelfwatchConfig {
  const parsed = parseConfig(raw);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems, null, 2));
  return parsed.config;
}

/** One workspace "bench" watching `books` books (no sales), on a plan no benchmark reaches. */
export function booksConfig(
  redisUrl: string,
  prefix: string,
  books: number,
  extra: Record<string, unknown> = {},
): ShelfwatchConfig {
  return configOrThrow({
    redis: { url: redisUrl, prefix },
    workspaces: [
      {
        id: 'bench',
        baseUrl: 'http://127.0.0.1:9',
        apiKey: 'sk_bench_unused',
        plan: 'custom:100000:100000000',
        sales: false,
        books: Array.from({ length: books }, (_, i) => ({ asin: benchAsin(i + 1) })),
      },
    ],
    ...extra,
  });
}
