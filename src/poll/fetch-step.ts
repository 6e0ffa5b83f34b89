/**
 * The fetch of one poll and what its outcome means: the observation, or a failure the target's
 * health judges. What an API error means for the workspace's budget (wait, pause) is decided by
 * `judgeApiOutcome` (budget/api-outcome-policy.ts), the one policy polls and the digest share;
 * a wait becomes the job's `DeferredError`.
 */
import { describeDrift } from '../api/index.ts';
import { judgeApiOutcome } from '../budget/api-outcome-policy.ts';
import { DeferredError } from '../model/deferred.ts';
import type { StoredTarget, TargetHealth } from '../snapshot/store.ts';
import { type FetchResult, fetchObservation, isEmptyWhereDataExpected } from './fetch.ts';
import { announcePause } from './pause-alerts.ts';
import type { PollContext, PollDeps } from './poll-types.ts';
import { fetchKeywordSeries, type SeriesFetchResult } from './rankings.ts';
import type { WatchTarget } from './targets.ts';

export interface PollFailure {
  status: 'no_data' | 'error';
  reason: string;
  requests: number;
  drift?: string | undefined;
  /** A refused key is the workspace's failure, alerted by its pause episode, not by target streaks. */
  workspace: boolean;
}

export type FetchOutcome =
  | { fetched: FetchResult | SeriesFetchResult; failure?: undefined }
  | { fetched?: undefined; failure: PollFailure };

/** Fetches the target (inside its budget reservation when the runtime wired one). */
export async function fetchTarget(
  deps: PollDeps,
  workspace: string,
  target: WatchTarget,
  stored: StoredTarget | undefined,
  health: TargetHealth,
  ctx: PollContext,
): Promise<FetchOutcome> {
  try {
    const client = deps.clientFor(workspace);
    const fetchCtx = { signal: ctx.signal, nowMs: ctx.pollTimeMs };
    const walk = () =>
      target.kind === 'keywords' && target.source === 'series'
        ? fetchKeywordSeries(client, target, stored?.observation, fetchCtx)
        : fetchObservation(client, target, fetchCtx, stored?.observation);
    const fetched =
      deps.reserveWalk === undefined
        ? await walk()
        : await deps.reserveWalk(workspace, health.costPerPoll, ctx.signal, walk);
    if (!isEmptyWhereDataExpected(fetched, stored?.observation)) return { fetched };
    const reason = 'the API answered with no items where data was expected';
    return { failure: { status: 'no_data', reason, requests: fetched.requests, workspace: false } };
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    const verdict = await judgeApiOutcome(
      { budget: deps.budget, episodes: deps.pauses, authRecheckMs: deps.authRecheckMs },
      workspace,
      error,
    );
    if (verdict?.pause !== undefined) await announcePause(deps, workspace, verdict.pause);
    if (verdict?.kind === 'deferred') {
      throw new DeferredError('poll', verdict.retryAtMs, verdict.reason, { cause: error });
    }
    return {
      failure: {
        status: 'error',
        reason: describe(error),
        requests: 0,
        drift: describeDrift(error),
        workspace: verdict?.kind === 'unauthorized',
      },
    };
  }
}

/** A short, secret-free reason for logs and health alerts (API errors never carry the key). */
function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`.slice(0, 300);
  return String(error).slice(0, 300);
}
