/**
 * "Poll now": one poll of one target at once, as a one-off job on the poll queue of the shard the
 * workspace lives on (the worker that runs it is the one that runs its scheduled polls, with the
 * same lease, budget gate and commit). Refused before anything is queued when the month's or the
 * minute's budget has no room for the poll's cost (its learned requests per poll, or the first guess).
 */
import type { Runtime } from '../app/runtime.ts';
import { pollLimits } from '../budget/limits.ts';
import type { ShelfwatchConfig } from '../config/schema.ts';
import { targetsOfWorkspace } from '../poll/registry.ts';
import { estimatedCostPerPoll, type WatchTarget } from '../poll/targets.ts';

export type PollNowResult =
  | { ok: true; jobId: string; cost: number }
  | { ok: false; status: 404 | 409 | 429; reason: string; cost?: number };

/** A target of a workspace of this revision, or undefined. */
export function targetOf(
  config: ShelfwatchConfig,
  workspace: string,
  targetId: string,
): WatchTarget | undefined {
  const ws = config.workspaces.find((w) => w.id === workspace);
  return ws === undefined ? undefined : targetsOfWorkspace(ws).find((t) => t.ref.id === targetId);
}

/** Requests one poll of the target takes: what its polls took lately, else the first guess. */
export async function pollCost(runtime: Runtime, target: WatchTarget): Promise<number> {
  const health = await runtime.store.getHealth(target.ref);
  return Math.max(1, Math.ceil(health.costPerPoll ?? estimatedCostPerPoll(target)));
}

/** Job ids may not hold ":"; the time makes each click its own job. */
function jobIdOf(workspace: string, targetId: string, nowMs: number): string {
  return `now.${workspace}.${targetId}.${nowMs}`.replaceAll(':', '_');
}

export async function pollNow(
  runtime: Runtime,
  config: ShelfwatchConfig,
  workspace: string,
  targetId: string,
): Promise<PollNowResult> {
  const ws = config.workspaces.find((w) => w.id === workspace);
  const target = targetOf(config, workspace, targetId);
  if (ws === undefined || target === undefined)
    return { ok: false, status: 404, reason: `no target "${targetId}" in workspace "${workspace}"` };
  const cost = await pollCost(runtime, target);
  const usage = await runtime.budget.usage(workspace, pollLimits(ws));
  if (usage.pausedUntilMs !== null)
    return {
      ok: false,
      status: 409,
      cost,
      reason: `the workspace is paused (${usage.pauseReason ?? 'paused'}): no poll runs until the pause ends`,
    };
  if ((usage.monthRemaining ?? 0) < cost)
    return {
      ok: false,
      status: 429,
      cost,
      reason: `the month's budget has no room: ${usage.monthRemaining ?? 0} request(s) left before the reserve, this poll costs ${cost}`,
    };
  if ((usage.minuteRemaining ?? 0) < cost)
    return {
      ok: false,
      status: 429,
      cost,
      reason: `this minute's budget has no room: ${usage.minuteRemaining ?? 0} request(s) left of ${ws.plan.perMinute}, this poll costs ${cost}; try again in a minute`,
    };
  const shard = runtime.shards[runtime.shardMap.shardOf(workspace)] ?? runtime.shards[0];
  if (shard === undefined) return { ok: false, status: 409, reason: 'no poll queue in this process' };
  const jobId = jobIdOf(workspace, targetId, runtime.clock.now());
  await shard.pollQueue.add(
    'poll',
    { workspace, targetId },
    // One try: a click that fails is seen on the page; the scheduler's own polls carry on.
    { jobId, attempts: 1, removeOnComplete: { count: 1_000 }, removeOnFail: { count: 1_000 } },
  );
  return { ok: true, jobId, cost };
}
