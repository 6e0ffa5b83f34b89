import { type AnalyticsClient, describeDrift } from '../api/index.ts';
import { judgeApiOutcome } from '../budget/api-outcome-policy.ts';
import type { PauseEpisodes } from '../budget/pause-episode.ts';
import type { RedisRequestBudget } from '../budget/request-budget.ts';
import { recordHistory } from '../history/record.ts';
import type { RedisHistoryStore } from '../history/store.ts';
import { DeferredError } from '../jobs/deferred.ts';
import type { Alert } from '../model/alert.ts';
import type { Observation } from '../model/observation.ts';
import type { Logger } from '../ops/logger.ts';
import type { RuleConfig } from '../rules/config.ts';
import {
  encodeRuleState,
  evaluate,
  evaluateSourceHealth,
  type RuleState,
  ruleStateLostAlerts,
  type SourceHealthState,
  salvageRuleState,
} from '../rules/engine.ts';
import { inStoredOrder } from '../snapshot/keyword-order.ts';
import {
  DEFAULT_HEALTH,
  SnapshotDecodeError,
  type SnapshotStore,
  type StoredTarget,
  type TargetHealth,
} from '../snapshot/store.ts';
import type { Clock } from '../util/clock.ts';
import { bookNames } from './book-names.ts';
import { type FetchResult, fetchObservation, isEmptyWhereDataExpected } from './fetch.ts';
import type { TargetLease } from './lease.ts';
import { announcePause, closePauseEpisode } from './pause-alerts.ts';
import { fetchKeywordSeries, judgeHours, type SeriesFetchResult } from './rankings.ts';
import type { WatchTarget } from './targets.ts';

export interface PollJobData {
  workspace: string;
  targetId: string;
}

/** What the poller needs to know of the current config; rebuilt when the config changes. */
export interface TargetRegistry {
  target(workspace: string, targetId: string): WatchTarget | undefined;
  rules(workspace: string): RuleConfig[];
}

/** Where alerts go: one delivery job per alert and channel, with ids derived from the fingerprint. */
export interface AlertSink {
  enqueue(alerts: readonly Alert[]): Promise<void>;
}

export interface PollDeps {
  clientFor(workspace: string): AnalyticsClient;
  store: SnapshotStore;
  budget: RedisRequestBudget;
  /** Workspace pauses the API caused, alerted once per episode (budget/pause-episode.ts). */
  pauses: PauseEpisodes;
  registry: TargetRegistry;
  alerts: AlertSink;
  clock: Clock;
  logger: Logger;
  /** After a 401, how long the workspace rests before one request tries the key again. */
  authRecheckMs?: number;
  /**
   * Runs a poll's requests with its learned cost reserved up front (`walkWithinBudget`, wired by the
   * runtime); absent, each request takes its own turn at the budget gate.
   */
  reserveWalk?: <T>(
    workspace: string,
    costPerPoll: number | null,
    signal: AbortSignal,
    walk: () => Promise<T>,
  ) => Promise<T>;
  /** Hourly rank and BSR points kept for charts (absent: none kept). */
  history?: RedisHistoryStore;
  /** One poll of a target at a time across processes (absent in single-process tests). */
  lease?: TargetLease;
}

export interface PollContext {
  signal: AbortSignal;
  /**
   * The poll's identity in time: the scheduled time of the job, stable across retries and re-runs,
   * so a re-run after a crash evaluates to the same fingerprints.
   */
  pollTimeMs: number;
}

export type PollResult =
  | { status: 'ok'; alerts: number; requests: number; committed: boolean; baseline: boolean }
  | { status: 'no_data' | 'error'; alerts: number; requests: number; reason: string }
  | { status: 'stale' | 'duplicate' };

/** Learned requests per poll: a moving average, so one odd page count does not swing the plan. */
function learnCost(previous: number | null, requests: number): number {
  return previous === null ? requests : Math.round((previous * 0.7 + requests * 0.3) * 100) / 100;
}

/**
 * One poll of one target: fetch, classify the outcome, diff against the stored baseline, raise
 * alerts, enqueue their deliveries, then commit. Order matters for crash safety: deliveries are
 * enqueued (with deterministic ids) before the snapshot moves, so a crash in between re-runs into
 * the same ids and adds nothing.
 */
export async function processPoll(deps: PollDeps, data: PollJobData, ctx: PollContext): Promise<PollResult> {
  const target = deps.registry.target(data.workspace, data.targetId);
  // removeJobScheduler leaves an already-waiting job behind: it must not poll a target that is gone.
  if (target === undefined) return { status: 'stale' };
  const release =
    deps.lease === undefined ? async () => {} : await deps.lease.acquire(target.ref, ctx.pollTimeMs);
  if (release === null) return { status: 'duplicate' };
  try {
    return await pollTarget(deps, target, data, ctx);
  } finally {
    await release();
  }
}

async function pollTarget(
  deps: PollDeps,
  target: WatchTarget,
  data: PollJobData,
  ctx: PollContext,
): Promise<PollResult> {
  const { ref } = target;
  const { stored, expectedSeq } = await readBaseline(deps, ref);
  // A deferred job and the scheduler's next one may both reach the same poll time; one is enough.
  if (stored !== undefined && stored.committedAt >= ctx.pollTimeMs) return { status: 'duplicate' };
  const health = { ...DEFAULT_HEALTH, ...(await deps.store.getHealth(ref)) };
  // Raised by an earlier poll that may have died before enqueueing them (the error path below).
  if (health.pendingAlerts !== undefined && health.pendingAlerts.length > 0) {
    await deps.alerts.enqueue(health.pendingAlerts);
  }
  const rules = deps.registry.rules(data.workspace);
  const ruleCtx = { workspace: data.workspace, targetId: data.targetId, nowMs: ctx.pollTimeMs };

  let failure:
    | { status: 'no_data' | 'error'; reason: string; requests: number; drift?: string | undefined }
    | undefined;
  // A refused key is the workspace's failure, alerted by its pause episode, not by target streaks.
  let workspaceFailure = false;
  let fetched: FetchResult | SeriesFetchResult | undefined;
  try {
    const client = deps.clientFor(data.workspace);
    const fetchCtx = { signal: ctx.signal, nowMs: ctx.pollTimeMs };
    const walk = () =>
      target.kind === 'keywords' && target.source === 'series'
        ? fetchKeywordSeries(client, target, stored?.observation, fetchCtx)
        : fetchObservation(client, target, fetchCtx);
    fetched =
      deps.reserveWalk === undefined
        ? await walk()
        : await deps.reserveWalk(data.workspace, health.costPerPoll, ctx.signal, walk);
    if (isEmptyWhereDataExpected(fetched, stored?.observation)) {
      failure = {
        status: 'no_data',
        reason: 'the API answered with no items where data was expected',
        requests: fetched.requests,
      };
    }
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    // The budget's side of the outcome (defer, pause) is decided in one place for poll and digest.
    const verdict = await judgeApiOutcome(
      { budget: deps.budget, episodes: deps.pauses, authRecheckMs: deps.authRecheckMs },
      data.workspace,
      error,
    );
    if (verdict?.pause !== undefined) await announcePause(deps, data.workspace, verdict.pause);
    if (verdict?.kind === 'deferred') {
      throw new DeferredError('poll', verdict.retryAtMs, verdict.reason, { cause: error });
    }
    workspaceFailure = verdict?.kind === 'unauthorized';
    failure = { status: 'error', reason: describe(error), requests: 0, drift: describeDrift(error) };
  }

  const status = failure === undefined ? 'ok' : failure.status;
  const healthBefore = health.sourceHealth as SourceHealthState | undefined;
  const healthEval = workspaceFailure
    ? { alerts: [], state: healthBefore }
    : evaluateSourceHealth(ruleCtx, rules, status, healthBefore, {
        error: failure?.reason,
        drift: failure?.drift,
      });
  const nextHealth: TargetHealth = {
    ...health,
    consecutiveFailures: failure === undefined ? 0 : health.consecutiveFailures + 1,
    lastOutcome: status,
    lastPollAt: ctx.pollTimeMs,
    lastError: failure?.reason ?? null,
    sourceHealth: healthEval.state,
    pendingAlerts: undefined,
  };

  if (failure !== undefined || fetched === undefined) {
    // The state that says the streak was alerted is stored with its alerts before they are
    // enqueued: alerts sent while the stored state says they were not would never be followed by
    // a recovery. Killed before the outbox is emptied again, the next poll of the target enqueues
    // them (same job ids: nothing added twice).
    await deps.store.setHealth(ref, { ...nextHealth, pendingAlerts: healthEval.alerts });
    if (healthEval.alerts.length > 0) {
      await deps.alerts.enqueue(healthEval.alerts);
      await deps.store.setHealth(ref, nextHealth);
    }
    const reason = failure?.reason ?? 'no observation';
    deps.logger.warn({ target: ref, status, reason }, 'poll failed; baseline kept');
    return {
      status: failure?.status ?? 'error',
      alerts: healthEval.alerts.length,
      requests: failure?.requests ?? 0,
      reason,
    };
  }

  const before = stored === undefined ? undefined : readRuleState(deps, ref, stored);
  // Keyword and review alerts name their books (book-names.ts).
  const books = await bookNames(
    deps,
    data.workspace,
    target,
    'hours' in fetched ? undefined : fetched.observation,
  );
  const named = { ...ruleCtx, books };
  let observation: Observation;
  let evaluation: { alerts: Alert[]; state: RuleState | undefined };
  if ('hours' in fetched) {
    // The series: every hour since the last judged one, in order (rankings.ts).
    ({ observation, ...evaluation } = judgeHours(named, rules, before, fetched));
  } else {
    // In the stored keyword order: an answer that only reshuffled keeps its dictionary (keyword-order.ts).
    observation = inStoredOrder(stored?.observation, fetched.observation);
    evaluation = evaluate(named, rules, before?.observation, observation, before?.state);
  }
  const stateLost = before?.lost === undefined ? [] : ruleStateLostAlerts(ruleCtx, rules, before.lost);
  const alerts = [...healthEval.alerts, ...stateLost, ...evaluation.alerts];
  const recoveries = await closePauseEpisode(deps, data.workspace);
  await deps.alerts.enqueue(alerts);
  const committed = await deps.store.commit(
    ref,
    {
      observation,
      ruleState:
        evaluation.state === undefined ? stored?.ruleState : encodeRuleState(evaluation.state, observation),
      committedAt: ctx.pollTimeMs,
    },
    expectedSeq,
  );
  await deps.store.setHealth(ref, {
    ...nextHealth,
    costPerPoll: learnCost(health.costPerPoll, fetched.requests),
  });
  if (!committed) deps.logger.info({ target: ref }, 'another poll moved the baseline first; kept theirs');
  else
    await recordHistory(
      deps.history,
      data.workspace,
      'hours' in fetched ? fetched.hours : [observation],
      ctx.pollTimeMs,
    );
  return {
    status: 'ok',
    alerts: alerts.length + recoveries,
    requests: fetched.requests,
    committed,
    baseline: before === undefined,
  };
}

/**
 * The stored rule state, decoded against the observation stored with it (its keyword order). What
 * cannot be read is judged with fresh conditions rebuilt from the stored observation (which is
 * readable: `readBaseline` passed it), and what can be read is kept: a new baseline instead would
 * miss this poll's changes and forget every rule's state. `lost` says why, for a health alert: a
 * condition that was firing may not resolve, one that was pending starts again.
 */
function readRuleState(
  deps: PollDeps,
  ref: WatchTarget['ref'],
  stored: StoredTarget,
): { observation: Observation; state: RuleState | undefined; lost?: string } {
  const { state, lost } = salvageRuleState(stored.ruleState, stored.observation);
  if (lost === undefined) return { observation: stored.observation, state };
  deps.logger.error(
    { target: ref, err: lost },
    'stored rule state unreadable; judging against the stored observation with fresh state for what was lost',
  );
  return { observation: stored.observation, state, lost: lost.message };
}

/**
 * The stored baseline, or none. An unreadable record (a format from a future version, corruption)
 * is logged and replaced by a fresh silent baseline instead of failing every poll of the target.
 */
async function readBaseline(
  deps: PollDeps,
  ref: WatchTarget['ref'],
): Promise<{ stored: StoredTarget | undefined; expectedSeq: number }> {
  try {
    const stored = await deps.store.get(ref);
    return { stored, expectedSeq: stored?.pollSeq ?? 0 };
  } catch (error) {
    if (!(error instanceof SnapshotDecodeError)) throw error;
    deps.logger.error({ target: ref, err: error }, 'stored snapshot unreadable; taking a new baseline');
    if (error.pollSeq !== null) return { stored: undefined, expectedSeq: error.pollSeq };
    await deps.store.delete(ref);
    return { stored: undefined, expectedSeq: 0 };
  }
}

/** A short, secret-free reason for logs and health alerts (API errors never carry the key). */
function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`.slice(0, 300);
  return String(error).slice(0, 300);
}
