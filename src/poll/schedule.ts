import { utcBillingMonth } from '../budget/keys.ts';
import { type Plan, planCadences } from '../budget/planner.ts';
import type { WorkspaceConfig } from '../config/schema.ts';
import { type Clock, realDelayMs } from '../util/clock.ts';
import { MINUTE_MS } from '../util/time-units.ts';
import { keywordSourceCosts } from './keyword-source.ts';
import type { PollJobData } from './poll-types.ts';
import { estimatedCostPerPoll, MAX_CADENCE_MS, USEFUL_CADENCE_MS, type WatchTarget } from './targets.ts';

/** One poll scheduler the plan wants: a target polled every `everyMs` real milliseconds. */
export interface DesiredSchedule {
  schedulerId: string;
  everyMs: number;
  /** Delay of a new scheduler's first run; later runs keep that phase, spreading equal cadences. */
  firstRunDelayMs?: number;
  /** A cadence set in the config: applied as written, without the hysteresis of planned ones. */
  exact?: boolean;
  data: PollJobData;
}

/** Scheduler ids become part of BullMQ job ids, which may not contain ":". */
export function schedulerIdFor(workspace: string, targetId: string): string {
  return `${workspace}.${targetId}`.replaceAll(':', '_');
}

/**
 * The plan for one workspace: each target's learned cost (or a first guess), the useful and slowest
 * cadences of its kind, config overrides, and what the month has used so far.
 */
export function planWorkspace(
  ws: WorkspaceConfig,
  targets: readonly WatchTarget[],
  learnedCost: ReadonlyMap<string, number | null>,
  usedThisMonth: number,
  nowMs: number,
): Plan {
  const month = utcBillingMonth(nowMs);
  const overrides: Record<string, number> = {};
  for (const target of targets) {
    if (target.overrideCadenceMs !== undefined) overrides[target.ref.id] = target.overrideCadenceMs;
  }
  const plan = planCadences({
    targets: targets.map((target) => ({
      id: target.ref.id,
      kind: target.kind,
      costPerPoll: Math.max(1, learnedCost.get(target.ref.id) ?? estimatedCostPerPoll(target)),
      usefulCadenceMs: USEFUL_CADENCE_MS[target.kind],
      maxCadenceMs: MAX_CADENCE_MS[target.kind],
    })),
    perMinute: ws.plan.perMinute,
    perMonth: ws.plan.perMonth,
    reserveShare: ws.reserve,
    nowMs,
    monthStartMs: month.startMs,
    monthEndMs: month.endMs,
    usedThisMonth,
    overrideCadenceMs: overrides,
  });
  const byId = new Map(targets.map((t) => [t.ref.id, t]));
  for (const row of plan.rows) {
    const target = byId.get(row.id);
    if (target?.kind !== 'keywords') continue;
    const costs = keywordSourceCosts(row.cadenceMs, 'top' in target.keywords);
    row.keywordSource = {
      chosen: target.source ?? 'snapshot',
      seriesPerMonth: costs.series,
      snapshotPerMonth: costs.snapshot,
    };
  }
  return plan;
}

const FIRST_RUN_SPREAD_MS = 5 * MINUTE_MS;

/** A stable pseudo-random phase for a scheduler within `everyMs`. */
function offsetFor(schedulerId: string, everyMs: number): number {
  let hash = 2166136261;
  for (let i = 0; i < schedulerId.length; i += 1) {
    hash ^= schedulerId.charCodeAt(i);
    hash = Math.imul(hash, 16777619);
  }
  return (hash >>> 0) % Math.max(1, everyMs);
}

/** Plan rows → BullMQ job schedulers (cadences translated to real time for accelerated clocks). */
export function schedulesFromPlan(workspace: string, plan: Plan, clock: Clock): DesiredSchedule[] {
  return plan.rows.map((row) => {
    const schedulerId = schedulerIdFor(workspace, row.id);
    const everyMs = Math.max(1_000, realDelayMs(clock, row.cadenceMs));
    return {
      schedulerId,
      everyMs,
      // The first poll (a silent baseline) comes within a few minutes, not a whole cadence later;
      // the phase it sets keeps targets of one cadence from all firing in the same minute. Later
      // cadence changes keep that phase (repeatFor in jobs/schedulers.ts); the delay only places a
      // new scheduler's first run, or an overdue one's next.
      firstRunDelayMs: offsetFor(schedulerId, Math.min(everyMs, FIRST_RUN_SPREAD_MS)),
      ...(row.overridden ? { exact: true } : {}),
      data: { workspace, targetId: row.id },
    };
  });
}
