/**
 * What a poll starts from: the stored baseline (snapshot and rule state) and the target's health.
 * Whatever cannot be read is logged and replaced, so one unreadable record never fails every poll.
 */
import type { Observation } from '../model/observation.ts';
import { salvageRuleState } from '../rule-state/index.ts';
import type { RuleState } from '../rules/engine.ts';
import {
  DEFAULT_HEALTH,
  SnapshotDecodeError,
  type StoredTarget,
  type TargetHealth,
} from '../snapshot/store.ts';
import type { PollDeps } from './poll-types.ts';
import type { WatchTarget } from './targets.ts';

/** The target's health, and the alerts an earlier poll raised but may have died before enqueueing. */
export async function readHealth(deps: PollDeps, ref: WatchTarget['ref']): Promise<TargetHealth> {
  const health = { ...DEFAULT_HEALTH, ...(await deps.store.getHealth(ref)) };
  // Raised by an earlier poll that may have died before enqueueing them (see recordFailure).
  if (health.pendingAlerts !== undefined && health.pendingAlerts.length > 0) {
    await deps.alerts.enqueue(health.pendingAlerts);
  }
  return health;
}

/**
 * The stored rule state, decoded against the observation stored with it (its keyword order). What
 * cannot be read is judged with fresh conditions rebuilt from the stored observation (which is
 * readable: `readBaseline` passed it), and what can be read is kept: a new baseline instead would
 * miss this poll's changes and forget every rule's state. `lost` says why, for a health alert: a
 * condition that was firing may not resolve, one that was pending starts again.
 */
export function readRuleState(
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
export async function readBaseline(
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
