/** The request budget's shapes, shared by the budget, its gate and their callers. */
import type { Clock } from '../util/clock.ts';

export interface BudgetLimits {
  perMinute: number;
  perMonth: number;
  /** Highest month count this caller may push the counter to: background polls pass
   * `perMonth × (1 − reserve)`, interactive commands the whole quota. Default `perMonth`. */
  monthCeiling?: number;
}

export type PauseReason = 'rate_limited' | 'quota_exceeded' | 'unauthorized';

export type BudgetDecision =
  | { granted: true; minuteUsed: number; monthUsed: number }
  | { granted: false; reason: 'minute' | 'month' | 'paused'; retryAtMs: number; pauseReason?: PauseReason };

export interface BudgetUsage {
  /** Grants inside the sliding window now. */
  minuteUsed: number;
  monthUsed: number;
  /** `YYYY-MM`, UTC. */
  month: string;
  monthResetAtMs: number;
  /** `Infinity` for a pause that lasts until `resume()`; null when not paused. */
  pausedUntilMs: number | null;
  pauseReason: PauseReason | null;
  /** Present when limits were given: what is left in the window and under the ceiling. */
  minuteRemaining?: number;
  monthRemaining?: number;
}

/** What `reserve` granted: enough to give its unused tail back. */
export interface BudgetGrant {
  readonly workspace: string;
  /** The billing month the grant counted in. */
  readonly month: string;
  readonly nonce: string;
  readonly count: number;
}

/**
 * What the gate asks of a budget (`RedisRequestBudget` is one). Declared here so the gate does
 * not import the budget that re-exports it.
 */
export interface GatedBudget {
  readonly clock: Clock;
  readonly windowMs: number;
  tryAcquire(workspace: string, limits: BudgetLimits, count?: number): Promise<BudgetDecision>;
  reserve(
    workspace: string,
    limits: BudgetLimits,
    count: number,
  ): Promise<{ decision: BudgetDecision; grant?: BudgetGrant }>;
  restamp(grant: BudgetGrant, index: number): Promise<boolean>;
  /** The request's answer came now: it holds the window from now, put back if it had left it. */
  answered(grant: BudgetGrant, index: number): Promise<void>;
  refund(grant: BudgetGrant, unused: number): Promise<void>;
}
