import { describe, expect, it } from 'vitest';
import {
  type Plan,
  type PlanInput,
  type PlanTarget,
  planCadences,
  planVerdict,
} from '../../src/budget/planner.ts';
import { formatPlanTable } from '../../src/cli/plan-table.ts';
import { seededRandom } from '../../src/sim/prng.ts';

const M = 60_000;
const H = 60 * M;
const D = 24 * H;
const NOV = Date.UTC(2026, 10, 1);
const DEC = Date.UTC(2026, 11, 1);
const STUDIO = { perMinute: 60, perMonth: 100_000 };
const PUBLISHER = { perMinute: 300, perMonth: 1_000_000 };

const KINDS: Omit<PlanTarget, 'id'>[] = [
  { kind: 'book', costPerPoll: 1, usefulCadenceMs: H, maxCadenceMs: D },
  { kind: 'keywords', costPerPoll: 1, usefulCadenceMs: H, maxCadenceMs: D },
  { kind: 'rankings', costPerPoll: 3, usefulCadenceMs: H, maxCadenceMs: D },
  { kind: 'reviews', costPerPoll: 2, usefulCadenceMs: 15 * M, maxCadenceMs: 12 * H },
  { kind: 'sales', costPerPoll: 1, usefulCadenceMs: 6 * H, maxCadenceMs: D },
];

function targets(count: number): PlanTarget[] {
  return Array.from({ length: count }, (_, i) => ({ id: `t${i}`, ...KINDS[i % KINDS.length]! }));
}

function input(overrides: Partial<PlanInput> & Pick<PlanInput, 'targets'>): PlanInput {
  return {
    ...STUDIO,
    reserveShare: 0.1,
    nowMs: NOV,
    monthStartMs: NOV,
    monthEndMs: DEC,
    usedThisMonth: 0,
    ...overrides,
  };
}

function byId(plan: Plan): Map<string, number> {
  return new Map(plan.rows.map((r) => [r.id, r.cadenceMs]));
}

/** The invariants every plan that fits must keep. */
function expectSound(plan: Plan, list: PlanTarget[]): void {
  expect(plan.fits).toBe(true);
  expect(plan.projectedUse).toBeLessThanOrEqual(plan.plannableBudget);
  expect(plan.headroom).toBe(plan.plannableBudget - plan.projectedUse);
  list.forEach((t, i) => {
    const row = plan.rows[i]!;
    expect(row.id).toBe(t.id);
    expect(row.cadenceMs).toBeGreaterThanOrEqual(t.usefulCadenceMs);
    expect(row.cadenceMs).toBeLessThanOrEqual(t.maxCadenceMs ?? Number.POSITIVE_INFINITY);
  });
}

describe('planCadences', () => {
  it.each([10, 100, 1000])('fits Studio with %i targets and keeps the reserve', (count) => {
    const list = targets(count);
    const plan = planCadences(input({ targets: list }));
    expectSound(plan, list);
    expect(plan.plannableBudget).toBe(90_000);
    // At the month's start, the full-month projection per row is what the plan will use.
    expect(plan.rows.reduce((s, r) => s + r.requestsPerMonth, 0)).toBe(plan.projectedUse);
    if (count === 10) {
      expect(plan.stretch).toBe(1);
      expect(plan.rows.map((r) => r.cadenceMs)).toEqual(list.map((t) => t.usefulCadenceMs));
    } else {
      // Stretched only as far as needed: the budget is used up to rounding.
      expect(plan.stretch).toBeGreaterThan(1);
      expect(plan.headroom).toBeLessThan(plan.plannableBudget * 0.03);
    }
  });

  it('fits Publisher: 100 targets at their useful cadences, 1000 stretched', () => {
    const small = planCadences(input({ ...PUBLISHER, targets: targets(100) }));
    expectSound(small, targets(100));
    expect(small.stretch).toBe(1);
    const list = targets(1000);
    const large = planCadences(input({ ...PUBLISHER, targets: list }));
    expectSound(large, list);
    expect(large.plannableBudget).toBe(900_000);
    expect(large.stretch).toBeGreaterThan(1);
    expect(large.headroom).toBeLessThan(large.plannableBudget * 0.03);
  });

  it('never undercuts a useful cadence or overruns the budget, for random targets', () => {
    const random = seededRandom(2026);
    for (let run = 0; run < 40; run++) {
      const list: PlanTarget[] = Array.from({ length: 1 + Math.floor(random() * 300) }, (_, i) => {
        const useful = Math.round((1 + random() * 360) * M);
        const target: PlanTarget = {
          id: `r${run}-${i}`,
          kind: 'book',
          costPerPoll: 1 + Math.floor(random() * 4) + (random() < 0.3 ? 0.5 : 0),
          usefulCadenceMs: useful,
          weight: 0.25 + random() * 3,
        };
        if (random() < 0.5) target.maxCadenceMs = useful * (1 + random() * 200);
        return target;
      });
      const plan = planCadences(
        input({
          targets: list,
          nowMs: NOV + Math.floor(random() * 29 * D),
          usedThisMonth: Math.floor(random() * 60_000),
        }),
      );
      for (const [i, t] of list.entries())
        expect(plan.rows[i]!.cadenceMs).toBeGreaterThanOrEqual(t.usefulCadenceMs);
      if (plan.fits) expectSound(plan, list);
      else expect(plan.warnings.join('\n')).toMatch(/more requests than/);
    }
  });

  it('re-plans mid-month from what is left over the time left', () => {
    const list = targets(100);
    const start = byId(planCadences(input({ targets: list })));
    const mid = NOV + 15 * D;
    const behind = planCadences(input({ targets: list, nowMs: mid, usedThisMonth: 70_000 }));
    expectSound(behind, list);
    expect(behind.plannableBudget).toBe(20_000);
    for (const row of behind.rows) expect(row.cadenceMs).toBeGreaterThanOrEqual(start.get(row.id)!);
    expect(behind.rows.filter((r) => r.cadenceMs > start.get(r.id)!).length).toBeGreaterThan(50);
    // Having used little, the rest of the month may poll faster than the first plan.
    const ahead = planCadences(input({ targets: list, nowMs: mid, usedThisMonth: 10_000 }));
    expectSound(ahead, list);
    expect(ahead.rows.filter((r) => r.cadenceMs < start.get(r.id)!).length).toBeGreaterThan(50);
  });

  it('reports an impossible month with fits=false and the number of missing requests', () => {
    const list = targets(1000).map((t) => ({ ...t, costPerPoll: 1, usefulCadenceMs: H, maxCadenceMs: H }));
    const plan = planCadences(input({ targets: list }));
    expect(plan.fits).toBe(false);
    expect(plan.rows.every((r) => r.cadenceMs === H)).toBe(true);
    expect(plan.projectedUse).toBe(720_000);
    expect(plan.headroom).toBe(-630_000);
    expect(plan.warnings.some((w) => w.includes('630000 more requests than the 90000 plannable'))).toBe(true);
    expect(plan.warnings.some((w) => w.includes('2026-11-04'))).toBe(true);
    const table = formatPlanTable(plan);
    expect(table).toContain('\nheadroom          -630,000 requests\n');
    expect(table).toContain('\nfits              NO: the plan does NOT fit the month: ');
    expect(table).toContain('\nwarnings:\n  - the plan needs 630000 more requests');
  });

  it('honours overrides as given, counts them, and stretches the others to pay for them', () => {
    const list = targets(100);
    const plain = byId(planCadences(input({ targets: list })));
    const plan = planCadences(input({ targets: list, overrideCadenceMs: { t0: 5 * M, nope: H } }));
    expectSound({ ...plan, rows: plan.rows.slice(1) }, list.slice(1));
    const t0 = plan.rows[0]!;
    expect(t0).toMatchObject({ cadenceMs: 5 * M, overridden: true, requestsPerMonth: 8640 });
    for (const row of plan.rows.slice(1)) expect(row.cadenceMs).toBeGreaterThanOrEqual(plain.get(row.id)!);
    expect(plan.warnings).toContain('override for unknown target "nope" ignored');
    expect(plan.warnings.some((w) => w.startsWith('t0: override 5m polls faster'))).toBe(true);

    const tooMuch = planCadences(input({ targets: list, overrideCadenceMs: { t0: 10_000 } }));
    expect(tooMuch.fits).toBe(false);
    expect(tooMuch.rows[0]!.cadenceMs).toBe(10_000);
  });

  it('stretches a low-weight target more than a high-weight one', () => {
    const base = { kind: 'book', costPerPoll: 1, usefulCadenceMs: H };
    const list = [
      { id: 'important', ...base, weight: 4 },
      { id: 'normal', ...base },
      { id: 'minor', ...base, weight: 0.25 },
    ];
    const plan = planCadences(input({ targets: list, perMonth: 1_000 }));
    expectSound(plan, list);
    const [important, normal, minor] = plan.rows.map((r) => r.cadenceMs) as [number, number, number];
    expect(important).toBeLessThan(normal);
    expect(normal).toBeLessThan(minor);
  });

  it('keeps the sustained rate under the per-minute limit and warns when polls may align', () => {
    const list = Array.from({ length: 50 }, (_, i) => ({
      id: `k${i}`,
      kind: 'keywords',
      costPerPoll: 1,
      usefulCadenceMs: M,
    }));
    const plan = planCadences(input({ targets: list, perMinute: 10, perMonth: 10_000_000 }));
    expectSound(plan, list);
    const perMinute = plan.rows.reduce((s, r) => s + (r.costPerPoll * M) / r.cadenceMs, 0);
    expect(perMinute).toBeLessThanOrEqual(9);
    expect(perMinute).toBeGreaterThan(8.5);
    expect(plan.perMinutePeak).toBe(50);
    expect(plan.warnings.some((w) => w.startsWith('if polls align, up to 50 requests'))).toBe(true);
  });

  it('a plan over the minute says what the reserve leaves of the limit and why (20/min, 10%: 18.0)', () => {
    // 30 targets of 1 request a minute that may not stretch: 30 a minute against a 20/min plan.
    const list = Array.from({ length: 30 }, (_, i) => ({
      id: `k${i}`,
      kind: 'keywords',
      costPerPoll: 1,
      usefulCadenceMs: M,
      maxCadenceMs: M,
    }));
    const plan = planCadences(input({ targets: list, perMinute: 20, perMonth: 10_000_000 }));
    expect(plan.binding).toEqual(['minute']);
    expect(plan.minuteCap).toBeCloseTo(18);
    expect(planVerdict(plan)).toBe(
      'the plan does NOT fit the per-minute limit: 30.0 requests a minute needed on average, 18.0 plannable (20 a minute less the 10% reserve kept for interactive commands)',
    );
    const none = planCadences(input({ targets: list, perMinute: 20, perMonth: 10_000_000, reserveShare: 0 }));
    expect(planVerdict(none)).toBe(
      'the plan does NOT fit the per-minute limit: 30.0 requests a minute needed on average, 20.0 plannable (the whole 20 a minute: no reserve)',
    );
  });

  it('plans nothing for a month that has ended, and rejects bad input', () => {
    const plan = planCadences(input({ targets: targets(5), nowMs: DEC }));
    expect(plan).toMatchObject({ projectedUse: 0, fits: true });
    expect(planCadences(input({ targets: [], reserveShare: 0.34 })).plannableBudget).toBe(66_000);
    expect(() => planCadences(input({ targets: [...targets(2), ...targets(1)] }))).toThrow(/appears twice/);
    expect(() => planCadences(input({ targets: [{ ...targets(1)[0]!, costPerPoll: 0.5 }] }))).toThrow(
      /costPerPoll/,
    );
  });
});

describe('formatPlanTable', () => {
  it('is deterministic and shows cadence, cost, share and the budget footer', () => {
    const list: PlanTarget[] = [
      { id: 'B0CJ4XQ2ZK/US book', kind: 'book', costPerPoll: 1, usefulCadenceMs: 90 * M },
      {
        id: 'launch reviews',
        kind: 'reviews',
        costPerPoll: 2.4,
        usefulCadenceMs: 15 * M,
        maxCadenceMs: 15 * M,
      },
    ];
    const make = () => planCadences(input({ targets: list, perMonth: 10_000, overrideCadenceMs: {} }));
    expect(make()).toEqual(make());
    const table = formatPlanTable(make());
    expect(table).toBe(formatPlanTable(make()));
    expect(table).toBe(
      [
        'target              kind     req/poll  cadence  req/month   share',
        '------------------  -------  --------  -------  ---------  ------',
        'B0CJ4XQ2ZK/US book  book            1  1h 30m         480   4.80%',
        'launch reviews      reviews       2.4  15m          6,912  69.12%',
        '',
        'plannable budget  9,000 requests (rest of this month, reserve kept)',
        'projected use     7,392 requests to the end of the month',
        'headroom          1,608 requests',
        'per-minute peak   4 requests if every poll falls in one minute',
        'fits              yes',
        '',
      ].join('\n'),
    );
    // With names (status.ts's targetNames): the title first, the target id after it.
    const named = formatPlanTable(make(), new Map([['launch reviews', 'Spring ARC']])).split('\n');
    expect(named[0]).toMatch(/^title\s+target\s+kind/);
    expect(named[3]).toMatch(/^Spring ARC\s+launch reviews\s+reviews/);
  });
});
