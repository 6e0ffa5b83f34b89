/**
 * The one place that decides what an API outcome means for a workspace's request budget, for
 * the poller and the digest alike:
 * - the budget refused the request (window, month ceiling, or a pause in force): wait, it is no
 *   failure;
 * - a 429: pause the workspace for `Retry-After`, bounded by what the limit can mean, and wait;
 * - a 401: pause the workspace until the key is tried again; the outcome is a failure.
 * Every pause the API caused is part of a pause episode (`pause-episode.ts`) that the caller can
 * alert about.
 */
import { RateLimitedError, UnauthorizedError } from '../api/index.ts';
import { MINUTE_MS } from '../util/time-units.ts';
import { utcBillingMonth } from './keys.ts';
import type { PauseEpisode, PauseEpisodes } from './pause-episode.ts';
import { BudgetExhaustedError, type PauseReason, type RedisRequestBudget } from './request-budget.ts';

/** A per-minute limit resets within a minute: no Retry-After for it is believed past this. */
export const MAX_RATE_LIMIT_PAUSE_MS = 5 * MINUTE_MS;
/** After a 401, how long the workspace rests before one request tries the key again. */
export const DEFAULT_AUTH_RECHECK_MS = 15 * MINUTE_MS;

export interface ApiOutcomePolicyDeps {
  budget: RedisRequestBudget;
  episodes: PauseEpisodes;
  authRecheckMs?: number | undefined;
}

/** A pause the outcome set or ran into, and the episode it belongs to. */
export interface WorkspacePause {
  reason: PauseReason;
  untilMs: number;
  /** This outcome set the pause (a 429, a 401), as opposed to meeting one already in force. */
  setNow: boolean;
  /** What the API asked for when the bound cut it short (ms), for the log. */
  askedMs?: number;
  episode: PauseEpisode;
}

export type ApiOutcomeVerdict =
  /** Wait until `retryAtMs`; no failure, no attempt spent. */
  | { kind: 'deferred'; retryAtMs: number; reason: string; pause?: WorkspacePause }
  /** A failed outcome that also paused the workspace (the key was refused). */
  | { kind: 'unauthorized'; reason: string; pause: WorkspacePause };

/**
 * How long a 429 pauses the workspace: its Retry-After, but never past what the limit can need.
 * A per-minute limit cannot need more than a few minutes; a quota needs at most the rest of the
 * billing month (UTC), when it resets.
 */
export function rateLimitPauseMs(error: RateLimitedError, nowMs: number): number {
  const bound =
    error.scope === 'month' ? Math.max(0, utcBillingMonth(nowMs).endMs - nowMs) : MAX_RATE_LIMIT_PAUSE_MS;
  return Math.min(Math.max(0, error.retryAfterMs), bound);
}

/**
 * The verdict on an error of an API call, or undefined when the error is not the budget's
 * business (a 5xx, a timeout, a schema mismatch: the caller's ordinary failure).
 */
export async function judgeApiOutcome(
  deps: ApiOutcomePolicyDeps,
  workspace: string,
  error: unknown,
): Promise<ApiOutcomeVerdict | undefined> {
  const nowMs = deps.budget.clock.now();
  if (error instanceof BudgetExhaustedError) {
    const reason = `request budget: ${error.reason}`;
    if (error.reason !== 'paused' || error.pauseReason === undefined) {
      return { kind: 'deferred', retryAtMs: error.retryAtMs, reason };
    }
    const episode = await deps.episodes.record(workspace, error.pauseReason, error.retryAtMs, nowMs);
    const pause = { reason: error.pauseReason, untilMs: error.retryAtMs, setNow: false, episode };
    return { kind: 'deferred', retryAtMs: error.retryAtMs, reason, pause };
  }
  if (error instanceof RateLimitedError) {
    const waitMs = rateLimitPauseMs(error, nowMs);
    const reason: PauseReason = error.scope === 'month' ? 'quota_exceeded' : 'rate_limited';
    const untilMs = nowMs + waitMs;
    const pause = await setPause(deps, workspace, reason, untilMs, nowMs);
    if (waitMs < error.retryAfterMs) pause.askedMs = error.retryAfterMs;
    return { kind: 'deferred', retryAtMs: untilMs, reason: `429 ${error.code}`, pause };
  }
  if (error instanceof UnauthorizedError) {
    const untilMs = nowMs + (deps.authRecheckMs ?? DEFAULT_AUTH_RECHECK_MS);
    const pause = await setPause(deps, workspace, 'unauthorized', untilMs, nowMs);
    return { kind: 'unauthorized', reason: 'the API refused the key (401)', pause };
  }
  return undefined;
}

async function setPause(
  deps: ApiOutcomePolicyDeps,
  workspace: string,
  reason: PauseReason,
  untilMs: number,
  nowMs: number,
): Promise<WorkspacePause> {
  await deps.budget.pauseUntil(workspace, untilMs, reason);
  const episode = await deps.episodes.record(workspace, reason, untilMs, nowMs);
  return { reason, untilMs, setNow: true, episode };
}
