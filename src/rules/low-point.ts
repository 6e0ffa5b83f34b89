import type { FiringCondition } from '../rule-state/condition.ts';
import { spokenDuration } from '../util/duration.ts';
import { rank } from '../util/format.ts';

/**
 * What a recovered message says about the episode it ends: how low the rank went and for how long
 * ("was down to #31 for 5 h 20 min"). The duration runs from the alert that fired to the poll that
 * saw the recovery. A firing stored before the low point was tracked says only how long.
 */
export function lowPoint(firing: FiringCondition, recoveredAt: number): string {
  const lasted = spokenDuration(recoveredAt - firing.firedAt);
  const worst = firing.worst;
  if (worst === undefined) return `was down for ${lasted}`;
  return `was down to ${rank(Number.isFinite(worst) ? worst : null)} for ${lasted}`;
}

/** The same as facts for the templates: `lowPoint` null when unranked or not known. */
export function lowPointFacts(
  firing: FiringCondition,
  recoveredAt: number,
): { lowPoint: number | null; lowPointUnranked: boolean; firedAt: number; downForMs: number } {
  const worst = firing.worst;
  return {
    firedAt: firing.firedAt,
    lowPoint: worst !== undefined && Number.isFinite(worst) ? worst : null,
    lowPointUnranked: worst === Number.POSITIVE_INFINITY,
    downForMs: recoveredAt - firing.firedAt,
  };
}
