/**
 * The cadence planner: how often to poll each target so the month's quota lasts. Pure: the
 * caller brings the month's bounds, what was used so far and each target's learned cost.
 *
 * Every stretchable target's cadence is `useful × (1 + (s − 1) / weight)`, capped at its
 * slowest acceptable cadence, for one stretch factor `s ≥ 1` shared by all: at s = 1 every
 * target polls at its useful cadence, and a target of weight 2 stretches half as much as one of
 * weight 1. The smallest `s` whose projection fits is found by bisection (use falls as s grows).
 */
import { formatDuration } from '../util/duration.ts';
import { MINUTE_MS } from '../util/time-units.ts';

export interface PlanTarget {
  id: string;
  kind: string;
  /** Requests one poll takes (pages included), learned from real polls; may be an average. ≥ 1. */
  costPerPoll: number;
  /** Fastest cadence worth polling: the data's own update interval. */
  usefulCadenceMs: number;
  /** Slowest acceptable cadence. Without one a target may stretch to one poll a month. */
  maxCadenceMs?: number;
  /** Priority; lower stretches more. Default 1. */
  weight?: number;
}

export interface PlanInput {
  targets: PlanTarget[];
  perMinute: number;
  perMonth: number;
  /** Share of the month's quota (and of the per-minute limit) kept for interactive commands. */
  reserveShare: number;
  nowMs: number;
  monthStartMs: number;
  monthEndMs: number;
  usedThisMonth: number;
  /** Cadences fixed by config: used as given, and their requests counted first. */
  overrideCadenceMs?: Record<string, number>;
}

export interface PlanRow {
  id: string;
  kind: string;
  costPerPoll: number;
  cadenceMs: number;
  /** Requests a full month at this cadence would take. */
  requestsPerMonth: number;
  /** `requestsPerMonth / perMonth`. */
  shareOfQuota: number;
  overridden: boolean;
  /**
   * Keywords targets: the source that judges their ranks and, at this row's cadence, the requests
   * a month each source takes to judge every hour (poll/keyword-source.ts).
   */
  keywordSource?: { chosen: 'series' | 'snapshot'; seriesPerMonth: number; snapshotPerMonth: number };
}

export interface Plan {
  rows: PlanRow[];
  /** What is left of the month's quota after the reserve: `perMonth × (1 − reserve) − used`. */
  plannableBudget: number;
  /** Requests the plan makes from now to the month's end. */
  projectedUse: number;
  headroom: number;
  /** False when even the slowest acceptable cadences (or the overrides) overrun the budget. */
  fits: boolean;
  /** Requests in one minute if every target's polls fall into the same minute. */
  perMinutePeak: number;
  /** The shared stretch factor (1: every stretchable target at its useful cadence). */
  stretch: number;
  /**
   * Requests a minute the plan averages, and what it may average: the per-minute limit less the
   * reserve's share, so interactive commands (keywords, arc invite) usually find
   * room in the minute. A planning target only: the gate lets polls use the whole limit.
   */
  sustainedPerMinute: number;
  minuteCap: number;
  /** The plan's per-minute limit and the reserve share applied (clamped), for the verdict's words. */
  perMinute: number;
  reserveShare: number;
  /** The limits the plan breaks when it does not fit: the month's quota, the per-minute rate, or both. */
  binding: ('month' | 'minute')[];
  warnings: string[];
}

/**
 * Names the limit that does not fit, with its figures: a plan can fit the month and still break the
 * per-minute rate (the start-up line said "does NOT fit the month" for both). Empty when it fits.
 */
export function planVerdict(plan: Plan): string {
  const parts: string[] = [];
  if (plan.binding.includes('minute'))
    parts.push(
      `the per-minute limit: ${plan.sustainedPerMinute.toFixed(1)} requests a minute needed on average, ${minuteCapText(plan)}`,
    );
  if (plan.binding.includes('month'))
    parts.push(
      `the month: ${plan.projectedUse.toLocaleString('en-US')} requests needed, ${plan.plannableBudget.toLocaleString('en-US')} plannable`,
    );
  return parts.length === 0 ? '' : `the plan does NOT fit ${parts.join('; nor ')}`;
}

const MAX_RESERVE_SHARE = 0.9;
const BISECTION_STEPS = 200;

interface Prepared {
  target: PlanTarget;
  weight: number;
  maxMs: number;
  overrideMs: number | undefined;
}

export function planCadences(input: PlanInput): Plan {
  const warnings: string[] = [];
  checkInput(input);
  const reserve = Math.min(MAX_RESERVE_SHARE, Math.max(0, input.reserveShare));
  if (reserve !== input.reserveShare)
    warnings.push(`reserve share ${input.reserveShare} clamped to ${reserve}`);
  const monthMs = input.monthEndMs - input.monthStartMs;
  const leftMs = Math.max(0, input.monthEndMs - Math.max(input.nowMs, input.monthStartMs));
  // The same rounding as the budget gate's ceiling (float noise forgiven, then down).
  const plannableBudget = Math.max(
    0,
    Math.floor(input.perMonth * (1 - reserve) + 1e-6) - input.usedThisMonth,
  );
  const minuteCap = input.perMinute * (1 - reserve);
  const overrides = input.overrideCadenceMs ?? {};
  const ids = new Set(input.targets.map((t) => t.id));
  for (const id of Object.keys(overrides).sort()) {
    if (!ids.has(id)) warnings.push(`override for unknown target "${id}" ignored`);
  }

  const prepared = input.targets.map((target): Prepared => {
    const overrideMs = Object.hasOwn(overrides, target.id) ? overrides[target.id] : undefined;
    if (overrideMs !== undefined && overrideMs < target.usefulCadenceMs) {
      warnings.push(
        `${target.id}: override ${formatDuration(overrideMs)} polls faster than its data changes (${formatDuration(target.usefulCadenceMs)})`,
      );
    }
    const wantedMax = target.maxCadenceMs ?? Math.max(monthMs, target.usefulCadenceMs);
    if (wantedMax < target.usefulCadenceMs) {
      warnings.push(
        `${target.id}: slowest cadence is faster than its useful cadence; using the useful cadence`,
      );
    }
    return {
      target,
      weight: target.weight ?? 1,
      maxMs: Math.max(wantedMax, target.usefulCadenceMs),
      overrideMs,
    };
  });

  const polls = (cadenceMs: number): number => (leftMs === 0 ? 0 : Math.ceil(leftMs / cadenceMs));
  const cadenceAt = (p: Prepared, s: number): number =>
    p.overrideMs ?? Math.min(p.maxMs, p.target.usefulCadenceMs * (1 + (s - 1) / p.weight));
  const useAt = (s: number): number => sum(prepared, (p) => p.target.costPerPoll * polls(cadenceAt(p, s)));
  const rateAt = (s: number): number =>
    sum(prepared, (p) => (p.target.costPerPoll * MINUTE_MS) / cadenceAt(p, s));
  const feasible = (s: number): boolean => useAt(s) <= plannableBudget && rateAt(s) <= minuteCap;

  // Beyond sMax every stretchable target sits at its slowest cadence: stretching more gains nothing.
  let sMax = 1;
  for (const p of prepared) {
    if (p.overrideMs === undefined)
      sMax = Math.max(sMax, 1 + p.weight * (p.maxMs / p.target.usefulCadenceMs - 1));
  }
  let stretch = 1;
  let fits = true;
  if (!feasible(1)) {
    if (!feasible(sMax)) {
      fits = false;
      stretch = sMax;
    } else {
      let lo = 1;
      let hi = sMax;
      for (let i = 0; i < BISECTION_STEPS && hi - lo > hi * 1e-12; i++) {
        const mid = (lo + hi) / 2;
        if (feasible(mid)) hi = mid;
        else lo = mid;
      }
      stretch = hi;
    }
  }

  const rows = prepared.map((p): PlanRow => {
    const cadenceMs = p.overrideMs ?? Math.min(p.maxMs, roundUpCadence(cadenceAt(p, stretch)));
    const requestsPerMonth = Math.ceil(p.target.costPerPoll * Math.ceil(monthMs / cadenceMs));
    return {
      id: p.target.id,
      kind: p.target.kind,
      costPerPoll: p.target.costPerPoll,
      cadenceMs,
      requestsPerMonth,
      shareOfQuota: input.perMonth > 0 ? requestsPerMonth / input.perMonth : 0,
      overridden: p.overrideMs !== undefined,
    };
  });
  const projectedUse = Math.ceil(sum(rows, (r) => r.costPerPoll * polls(r.cadenceMs)));
  const sustainedPerMinute = sum(rows, (r) => (r.costPerPoll * MINUTE_MS) / r.cadenceMs);
  const perMinutePeak = sum(rows, (r) => Math.ceil(r.costPerPoll) * Math.ceil(MINUTE_MS / r.cadenceMs));

  const binding: Plan['binding'] = [];
  if (!fits) {
    if (projectedUse > plannableBudget) {
      binding.push('month');
      const rate = projectedUse / leftMs;
      const stopsAt = new Date(input.nowMs + Math.floor(plannableBudget / rate)).toISOString();
      warnings.push(
        `the plan needs ${projectedUse - plannableBudget} more requests than the ${plannableBudget} plannable this month, ` +
          `even at every target's slowest acceptable cadence; background polls will stop at the ceiling around ${stopsAt}. ` +
          'Drop targets, allow slower cadences, lower the reserve or raise the plan.',
      );
    }
    if (sustainedPerMinute > minuteCap) {
      binding.push('minute');
      warnings.push(
        `the plan averages ${sustainedPerMinute.toFixed(1)} requests a minute, over the ${minuteCapText({ minuteCap, perMinute: input.perMinute, reserveShare: reserve })}`,
      );
    }
  }
  if (perMinutePeak > input.perMinute) {
    warnings.push(
      `if polls align, up to ${perMinutePeak} requests fall in one minute (limit ${input.perMinute}): the budget gate delays the excess; stagger the schedules`,
    );
  }
  return {
    rows,
    plannableBudget,
    projectedUse,
    headroom: plannableBudget - projectedUse,
    fits,
    perMinutePeak,
    stretch,
    sustainedPerMinute,
    minuteCap,
    perMinute: input.perMinute,
    reserveShare: reserve,
    binding,
    warnings,
  };
}

/** "18.0 plannable (20 a minute less the 10% reserve kept for interactive commands)". */
function minuteCapText(plan: Pick<Plan, 'minuteCap' | 'perMinute' | 'reserveShare'>): string {
  const percent = Math.round(plan.reserveShare * 100);
  const why =
    percent === 0
      ? `the whole ${plan.perMinute} a minute: no reserve`
      : `${plan.perMinute} a minute less the ${percent}% reserve kept for interactive commands`;
  return `${plan.minuteCap.toFixed(1)} plannable (${why})`;
}

/** Whole seconds below an hour, whole minutes above: readable, only ever slower, and at most
 * 1/60 slower for cadences of a minute or more. */
function roundUpCadence(ms: number): number {
  const unit = ms < 60 * MINUTE_MS ? 1_000 : MINUTE_MS;
  return Math.ceil(ms / unit) * unit;
}

function sum<T>(items: readonly T[], value: (item: T) => number): number {
  let total = 0;
  for (const item of items) total += value(item);
  return total;
}

function checkInput(input: PlanInput): void {
  const positive = (name: string, value: number) => {
    if (!Number.isFinite(value) || value <= 0)
      throw new RangeError(`${name} must be a positive number, got ${value}`);
  };
  positive('perMinute', input.perMinute);
  if (!Number.isFinite(input.perMonth) || input.perMonth < 0) throw new RangeError('perMonth must be ≥ 0');
  if (!Number.isFinite(input.usedThisMonth) || input.usedThisMonth < 0)
    throw new RangeError('usedThisMonth must be ≥ 0');
  if (!(input.monthEndMs > input.monthStartMs)) throw new RangeError('monthEndMs must be after monthStartMs');
  if (!Number.isFinite(input.reserveShare)) throw new RangeError('reserveShare must be a number');
  const seen = new Set<string>();
  for (const t of input.targets) {
    if (seen.has(t.id)) throw new RangeError(`target id "${t.id}" appears twice`);
    seen.add(t.id);
    if (!(t.costPerPoll >= 1) || !Number.isFinite(t.costPerPoll)) {
      throw new RangeError(`${t.id}: costPerPoll must be ≥ 1, got ${t.costPerPoll}`);
    }
    positive(`${t.id}: usefulCadenceMs`, t.usefulCadenceMs);
    if (t.maxCadenceMs !== undefined) positive(`${t.id}: maxCadenceMs`, t.maxCadenceMs);
    if (t.weight !== undefined) positive(`${t.id}: weight`, t.weight);
  }
  for (const [id, ms] of Object.entries(input.overrideCadenceMs ?? {})) positive(`override for ${id}`, ms);
}
