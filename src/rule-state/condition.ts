/**
 * A condition's phases as stored: clear → pending (for N polls) → firing → clear again. Plain JSON
 * beside the snapshot; `rules/condition.ts` moves between the phases.
 */
interface PhaseBase {
  /** The reference value breaches are measured against; frozen while pending or firing. */
  baseline: number | null;
  /** When the baseline was set (ms). */
  baselineAt: number;
  /**
   * The last poll time at which the condition was clear. It names the episode that follows, so a
   * re-run of the same poll from the same state gives the same fingerprints.
   */
  clearAt: number;
}

export interface ClearCondition extends PhaseBase {
  phase: 'clear';
}

export interface PendingCondition extends PhaseBase {
  phase: 'pending';
  /** Consecutive breached polls so far. */
  count: number;
}

export interface FiringCondition extends PhaseBase {
  phase: 'firing';
  firedAt: number;
  lastNotifiedAt: number;
  /** Repeat notifications sent so far in this episode. */
  repeatCount: number;
  /**
   * The worst reading since it fired (the highest rank; Infinity for unranked), for the recovered
   * message's "was down to #31". Absent in state stored before it was tracked: a low point seen
   * only from the upgrade on would be a guess, so such an episode never gets one.
   */
  worst?: number;
}

export type ConditionState = ClearCondition | PendingCondition | FiringCondition;
