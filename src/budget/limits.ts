import type { WorkspaceConfig } from '../config/schema.ts';
import type { BudgetLimits } from './budget-types.ts';

/** The limits as whole numbers: the per-minute limit and the month ceiling this caller may reach. */
export function checkLimits(limits: BudgetLimits): { perMinute: number; ceiling: number } {
  const perMinute = positiveInteger('perMinute', limits.perMinute);
  if (!Number.isFinite(limits.perMonth) || limits.perMonth < 0) {
    throw new RangeError(`perMonth must be a number ≥ 0, got ${limits.perMonth}`);
  }
  const perMonth = Math.floor(limits.perMonth);
  const wanted = limits.monthCeiling ?? perMonth;
  if (Number.isNaN(wanted)) throw new RangeError('monthCeiling must be a number');
  // Fractional ceilings come from quota × (1 − reserve): round down so the reserve stays whole,
  // after forgiving float noise (100000 × (1 − 0.34) is 65999.99999999999).
  return { perMinute, ceiling: Math.max(0, Math.min(perMonth, Math.floor(wanted + 1e-6))) };
}

export function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new RangeError(`${name} must be a whole number ≥ 1, got ${value}`);
  return value;
}

/** Background polls keep the workspace's reserve free for interactive commands (keywords, arc invite). */
export function pollLimits(ws: WorkspaceConfig): BudgetLimits {
  return {
    perMinute: ws.plan.perMinute,
    perMonth: ws.plan.perMonth,
    // The epsilon keeps 100,000 × (1 − 0.34) at 66,000, as the planner counts it, not 65,999.
    monthCeiling: Math.floor(ws.plan.perMonth * (1 - ws.reserve) + 1e-6),
  };
}
