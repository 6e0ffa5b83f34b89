/**
 * `shelfwatch resume`'s logic: lift a workspace's pause and send its parked polls out again.
 */
import type { Job, Queue } from 'bullmq';
import type { PauseEpisode, PauseEpisodes } from '../budget/pause-episode.ts';
import type { BudgetUsage, RedisRequestBudget } from '../budget/request-budget.ts';
import type { PollJobData } from '../poll/processor.ts';

export interface ResumeReport {
  workspace: string;
  /** The pause in force that was lifted, or null when the workspace was not paused. */
  lifted: { reason: string | null; untilMs: number | null } | null;
  /** The open pause episode (alerted or not), closed by the next ok answer. */
  episode: PauseEpisode | null;
  /** Poll jobs the pause had parked (moved to delayed) that were put back to run now. */
  promoted: number;
}

export interface ResumeDeps {
  budget: RedisRequestBudget;
  pauses: PauseEpisodes;
  /** The poll queue; absent (tests without queues), nothing is promoted. */
  pollQueue?: Pick<Queue<PollJobData>, 'getDelayed'>;
}

/** Delayed jobs read per round trip. */
const PAGE = 500;

/** Lifts the workspace's pause, ends its episode's pause now and promotes its parked polls. */
export async function resumeWorkspace(deps: ResumeDeps, workspace: string): Promise<ResumeReport> {
  const usage: BudgetUsage = await deps.budget.usage(workspace);
  await deps.budget.resume(workspace);
  const episode = await deps.pauses.lift(workspace, deps.budget.clock.now());
  const paused = usage.pauseReason !== null || usage.pausedUntilMs !== null;
  const promoted = deps.pollQueue === undefined ? 0 : await promoteParkedPolls(deps.pollQueue, workspace);
  return {
    workspace,
    lifted: paused ? { reason: usage.pauseReason, untilMs: finiteOrNull(usage.pausedUntilMs) } : null,
    episode: episode ?? null,
    promoted,
  };
}

/**
 * A poll the pause deferred was started once and then moved to delayed (src/jobs/poll-job.ts), so it
 * has `attemptsStarted > 0`; a scheduler's next job (never started) is left at its planned time.
 * A poll skipped because its wait was too long (an exhausted quota) is not parked: it waits for
 * its scheduler's next run.
 */
async function promoteParkedPolls(
  queue: Pick<Queue<PollJobData>, 'getDelayed'>,
  workspace: string,
): Promise<number> {
  const parked: Job<PollJobData>[] = [];
  for (let start = 0; ; start += PAGE) {
    const page = await queue.getDelayed(start, start + PAGE - 1);
    parked.push(...page.filter((job) => job.data?.workspace === workspace && job.attemptsStarted > 0));
    if (page.length < PAGE) break;
  }
  let promoted = 0;
  for (const job of parked) {
    // A job that ran or was removed since it was listed is no longer delayed: nothing to do.
    const moved = await job.promote().then(
      () => true,
      () => false,
    );
    if (moved) promoted += 1;
  }
  return promoted;
}

function finiteOrNull(ms: number | null): number | null {
  return ms !== null && Number.isFinite(ms) ? ms : null;
}
