import { recordHistory } from '../history/record.ts';
import type { Alert } from '../model/alert.ts';
import type { Observation } from '../model/observation.ts';
import { encodeRuleState } from '../rule-state/index.ts';
import type { RuleConfig } from '../rules/config.ts';
import {
  evaluate,
  evaluateSourceHealth,
  type RuleState,
  ruleStateLostAlerts,
  type SourceHealthState,
} from '../rules/engine.ts';
import { inStoredOrder } from '../rules/keyword-order.ts';
import type { BookName } from '../rules/scope.ts';
import type { StoredTarget, TargetHealth } from '../snapshot/store.ts';
import { readBaseline, readHealth, readRuleState } from './baseline.ts';
import { bookNames, targetBookName } from './book-names.ts';
import type { FetchResult } from './fetch.ts';
import { fetchTarget, type PollFailure } from './fetch-step.ts';
import { closePauseEpisode } from './pause-alerts.ts';
import type { PollContext, PollDeps, PollJobData, PollResult } from './poll-types.ts';
import { judgeHours, type SeriesFetchResult } from './rankings.ts';
import { type Remembered, recoveredBaseline } from './state-loss.ts';
import type { WatchTarget } from './targets.ts';

export type {
  AlertSink,
  PollContext,
  PollDeps,
  PollJobData,
  PollResult,
  TargetRegistry,
} from './poll-types.ts';

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

/**
 * One poll, straight: the baseline (snapshot), the fetch (API, with the budget's verdict on its
 * errors), the judgement (source health, then the rules), the alerts handed to delivery, and the
 * commit (snapshot, health, history).
 */
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
  if (stored !== undefined) deps.memory?.remember(ref, stored.observation, stored.committedAt);
  // No baseline: a first poll, or Redis lost it (then what no live process saw is new).
  const remembered = stored === undefined ? await deps.stateLoss?.rememberedFor(ref) : undefined;
  const health = await readHealth(deps, ref);
  const rules = deps.registry.rules(data.workspace);
  const ruleCtx = { workspace: data.workspace, targetId: data.targetId, nowMs: ctx.pollTimeMs };

  const { fetched, failure } = await fetchTarget(deps, data.workspace, target, stored, health, ctx);
  // A failing (or recovering) book's target is named by its title: one snapshot read, only then.
  const named =
    failure !== undefined || health.consecutiveFailures > 0
      ? { ...ruleCtx, books: await targetBookName(deps, data.workspace, target, stored) }
      : ruleCtx;
  const healthEval = judgeSourceHealth(named, rules, health, failure);
  const nextHealth: TargetHealth = {
    ...health,
    consecutiveFailures: failure === undefined ? 0 : health.consecutiveFailures + 1,
    lastOutcome: failure?.status ?? 'ok',
    lastPollAt: ctx.pollTimeMs,
    lastError: failure?.reason ?? null,
    sourceHealth: healthEval.state,
    pendingAlerts: undefined,
  };
  if (failure !== undefined) return recordFailure(deps, ref, nextHealth, healthEval.alerts, failure);

  const before = stored === undefined ? lostBaseline(fetched, remembered) : readRuleState(deps, ref, stored);
  const judged = await judgeObservation(deps, target, ruleCtx, rules, stored, before, fetched, ctx.signal);
  const alerts = [...healthEval.alerts, ...judged.alerts];
  const recoveries = await closePauseEpisode(deps, data.workspace);
  await deps.alerts.enqueue(alerts);
  const committed = await deps.store.commit(
    ref,
    {
      observation: judged.observation,
      ruleState:
        judged.state === undefined ? stored?.ruleState : encodeRuleState(judged.state, judged.observation),
      committedAt: ctx.pollTimeMs,
    },
    expectedSeq,
  );
  await deps.store.setHealth(ref, {
    ...nextHealth,
    costPerPoll: learnCost(health.costPerPoll, fetched.requests),
  });
  if (!committed) deps.logger.info({ target: ref }, 'another poll moved the baseline first; kept theirs');
  else deps.memory?.remember(ref, judged.observation, ctx.pollTimeMs);
  if (committed)
    await recordHistory(
      deps.history,
      data.workspace,
      'hours' in fetched ? fetched.hours : [judged.observation],
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

type RuleContext = { workspace: string; targetId: string; nowMs: number; books?: Map<string, BookName> };

/** After a loss of state: what a live process remembers to judge against (state-loss.ts), or none. */
function lostBaseline(
  fetched: FetchResult | SeriesFetchResult,
  remembered: Remembered | undefined,
): { observation: Observation; state: undefined } | undefined {
  if (remembered === undefined || 'hours' in fetched) return undefined;
  const observation = recoveredBaseline(fetched.observation, remembered);
  return observation === undefined ? undefined : { observation, state: undefined };
}

/** The source-health rules on this outcome; a refused key leaves the target's streaks alone. */
function judgeSourceHealth(
  ruleCtx: RuleContext,
  rules: RuleConfig[],
  health: TargetHealth,
  failure: PollFailure | undefined,
): { alerts: Alert[]; state: SourceHealthState | undefined } {
  const healthBefore = health.sourceHealth as SourceHealthState | undefined;
  if (failure?.workspace === true) return { alerts: [], state: healthBefore };
  return evaluateSourceHealth(ruleCtx, rules, failure?.status ?? 'ok', healthBefore, {
    error: failure?.reason,
    drift: failure?.drift,
  });
}

/**
 * A failed poll keeps the baseline. The state that says the streak was alerted is stored with its
 * alerts before they are enqueued: alerts sent while the stored state says they were not would
 * never be followed by a recovery. Killed before the outbox is emptied again, the next poll of the
 * target enqueues them (same job ids: nothing added twice).
 */
async function recordFailure(
  deps: PollDeps,
  ref: WatchTarget['ref'],
  nextHealth: TargetHealth,
  alerts: Alert[],
  failure: PollFailure,
): Promise<PollResult> {
  await deps.store.setHealth(ref, { ...nextHealth, pendingAlerts: alerts });
  if (alerts.length > 0) {
    await deps.alerts.enqueue(alerts);
    await deps.store.setHealth(ref, nextHealth);
  }
  deps.logger.warn(
    { target: ref, status: failure.status, reason: failure.reason },
    'poll failed; baseline kept',
  );
  return {
    status: failure.status,
    alerts: alerts.length,
    requests: failure.requests,
    reason: failure.reason,
  };
}

/** The rules on the fetched observation against the stored one: the alerts and the next rule state. */
async function judgeObservation(
  deps: PollDeps,
  target: WatchTarget,
  ruleCtx: RuleContext,
  rules: RuleConfig[],
  stored: StoredTarget | undefined,
  before: ReturnType<typeof readRuleState> | undefined,
  fetched: FetchResult | SeriesFetchResult,
  signal: AbortSignal,
): Promise<{ observation: Observation; state: RuleState | undefined; alerts: Alert[] }> {
  // Keyword, sales and review alerts name their books (book-names.ts).
  const books = await bookNames(
    deps,
    ruleCtx.workspace,
    target,
    'hours' in fetched ? undefined : fetched.observation,
    signal,
  );
  const campaignName = target.kind === 'reviews' ? target.campaignName : undefined;
  const named = { ...ruleCtx, books, ...(campaignName === undefined ? {} : { campaignName }) };
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
  return { observation, state: evaluation.state, alerts: [...stateLost, ...evaluation.alerts] };
}
