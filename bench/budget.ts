/**
 * Budget: a simulated month per scenario (plan × books) on the simulator's accelerated clock, polls
 * through the real planner, Redis budget, API client and rules (see lib/month.ts). Measures the
 * requests used against the plannable budget, 429s and the busiest minute from the simulator's
 * request log, and the detection latency of scripted keyword and BSR events against the bound the
 * plan allows (the target's cadence: a uniform wait of cadence/2 on average, cadence at most).
 *
 * Default: Studio with 10 books (demand fits) and 100 books (demand exceeds the budget); `--full`
 * runs Studio and Publisher × 10, 100 and 1,000 books (about 1.2 M requests: hours on 2 cores);
 * `--quick` runs Studio 10 books for 3 sim days.
 */
import { readFileSync } from 'node:fs';
import { seededRandom } from '../src/sim/prng.ts';
import type { BenchContext, BenchResult, SummaryRow } from './lib/context.ts';
import { duration, fmt, percent, table } from './lib/format.ts';
import { type MonthScenario, type MonthSummary, simulateMonth } from './lib/month-scenario.ts';
import { latestResultFile } from './lib/report.ts';

const UTILISATION_GOAL = 0.95;
/** Of the requests sent, at most this share may be thrown away (a walk restarted, a poll abandoned). */
const WASTE_GOAL = 0.01;
const MATRIX: MonthScenario[] = [
  ...(['studio', 'publisher'] as const).flatMap((plan) => [10, 100, 1000].map((books) => ({ plan, books }))),
  // 100 books × 10 listed keywords judged hour by hour from the rankings series (issue #15).
  { plan: 'studio', books: 100, keywords: 10, keywordSource: 'series' },
];
const DEFAULT = ['studio-10', 'studio-100'];
const idOf = (s: { plan: string; books: number; keywords?: number; keywordSource?: string }) =>
  `${s.plan}-${s.books}${s.keywords === undefined ? '' : `x${s.keywords}`}${s.keywordSource === undefined ? '' : `-${s.keywordSource}`}`;

function select(ctx: BenchContext): MonthScenario[] {
  if (ctx.quick) return [{ plan: 'studio', books: 10, days: 3 }];
  const wanted = ctx.scenarios ?? (ctx.full ? MATRIX.map(idOf) : DEFAULT);
  const unknown = wanted.filter((id) => !MATRIX.some((s) => idOf(s) === id));
  if (unknown.length > 0) {
    throw new Error(
      `unknown budget scenario(s) ${unknown.join(', ')}; known: ${MATRIX.map(idOf).join(', ')}`,
    );
  }
  return MATRIX.filter((s) => wanted.includes(idOf(s)));
}

/** Scenarios of the last stored full-month run that this run does not repeat: each keeps its date. */
function earlier(ctx: BenchContext, ran: readonly MonthSummary[]): MonthSummary[] {
  const file = latestResultFile(ctx.root, 'budget');
  if (ctx.quick || file === undefined) return [];
  try {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { result?: { data?: MonthSummary[] } };
    return (stored.result?.data ?? []).filter(
      (s) => s.days >= 28 && s.ranAt !== undefined && !ran.some((r) => idOf(r) === idOf(s)),
    );
  } catch {
    return [];
  }
}

export async function run(ctx: BenchContext): Promise<BenchResult> {
  const scenarios = select(ctx);
  const results: MonthSummary[] = [];
  for (const scenario of scenarios) {
    ctx.log(
      `month: ${scenario.plan}, ${scenario.books} books${scenario.days ? `, ${scenario.days} days` : ''}`,
    );
    const summary = await simulateMonth(
      ctx,
      scenario,
      seededRandom(scenario.books * 7 + scenario.plan.length),
    );
    ctx.log(
      `  ${fmt(summary.used)} requests (${percent(summary.utilisation)} of ${fmt(summary.plannable)}), ` +
        `${summary.refused} 429s, latency p95 ${duration(summary.latency.p95)} vs bound ${duration(summary.latency.bound)}, ${fmt(summary.realSeconds)} s real`,
    );
    results.push(summary);
  }
  const all = [...results, ...earlier(ctx, results)].sort(
    (a, b) => MATRIX.findIndex((s) => idOf(s) === idOf(a)) - MATRIX.findIndex((s) => idOf(s) === idOf(b)),
  );
  return budgetResult(all);
}

/** The result as stored and shown; also re-renders stored months with this code's tables. */
export function budgetResult(all: MonthSummary[]): BenchResult {
  return {
    title: 'Budget: a simulated month through the planner, budget and client',
    summary: all.flatMap(summaryRows),
    details: details(all),
    data: all,
  };
}

function name(s: MonthSummary): string {
  const keywords = s.keywords === undefined ? '' : ` × ${s.keywords} keywords`;
  const source = s.keywordSource === undefined ? '' : ` by ${s.keywordSource}`;
  return `${s.plan} ${s.books} books${keywords}${source}${s.days < 28 ? ` (${s.days} days)` : ''}`;
}

function summaryRows(s: MonthSummary): SummaryRow[] {
  const exceeds = s.demand > s.plannable;
  const latencyGoal = 1.1 * s.latency.bound + 2_000;
  return [
    {
      metric: `${name(s)}: requests used / plannable`,
      value: `${fmt(s.used)} / ${fmt(s.plannable)}`,
      reference: `demand ${fmt(s.demand)}${exceeds ? ' (exceeds)' : ' (fits)'}`,
      ratio: percent(s.utilisation),
      goal: exceeds ? `≥ ${percent(UTILISATION_GOAL, 0)}` : 'n/a (demand fits)',
      met: exceeds ? s.utilisation >= UTILISATION_GOAL : null,
    },
    {
      metric: `${name(s)}: 429s / requests over a limit`,
      value: `${fmt(s.refused)} / ${fmt(s.overLimit)}`,
      reference: `busiest minute ${fmt(s.busiestMinute)} of ${fmt(s.perMinute)}`,
      goal: '0',
      met: s.refused === 0 && s.overLimit === 0,
    },
    ...(s.wasted === undefined || s.sent === undefined
      ? []
      : [
          {
            metric: `${name(s)}: requests wasted / sent`,
            value: `${fmt(s.wasted)} / ${fmt(s.sent)}`,
            reference: 'sent minus the requests of finished polls',
            ratio: percent(s.sent === 0 ? 0 : s.wasted / s.sent),
            goal: `≤ ${percent(WASTE_GOAL, 0)}`,
            met: s.wasted <= WASTE_GOAL * s.sent,
          },
        ]),
    ...(s.hours === undefined
      ? []
      : [
          {
            metric: `${name(s)}: keyword hours judged / hours that existed`,
            value: `${fmt(s.hours.judged)} / ${fmt(s.hours.existed)}`,
            ratio: percent(s.hours.judged / Math.max(1, s.hours.existed)),
            goal: '100%',
            met: s.hours.judged === s.hours.existed,
          },
        ]),
    {
      metric: `${name(s)}: detection latency p50 / p95`,
      value: `${duration(s.latency.p50)} / ${duration(s.latency.p95)}`,
      reference: `cadence ${duration(s.latency.bound)} (expected wait ${duration(s.latency.bound / 2)})`,
      ratio: `${fmt(s.latency.p95 / s.latency.bound, 2)}× cadence`,
      goal: `p95 ≤ 1.1× cadence + 2 s`,
      met:
        s.latency.detected > 0 &&
        s.latency.missed === 0 &&
        s.latency.p95Margin <= 0 &&
        s.latency.p95 <= latencyGoal,
    },
  ];
}

function details(results: MonthSummary[]): string {
  const rows = results.map((s) => [
    name(s),
    fmt(s.targets),
    `${fmt(s.demand)} / ${fmt(s.plannable)}`,
    fmt(s.used),
    percent(s.utilisation),
    `${fmt(s.refused)} / ${fmt(s.overLimit)}`,
    s.wasted === undefined || s.sent === undefined ? '–' : `${fmt(s.wasted)} / ${fmt(s.sent)}`,
    `${fmt(s.busiestMinute)} (${fmt(s.busiestSlidingMinute)}) / ${fmt(s.perMinute)}`,
    `${duration(s.cadences.keywords)} / ${duration(s.cadences.book)}`,
    `${fmt(s.latency.detected)} (${fmt(s.latency.missed)} missed)`,
    `${duration(s.latency.p50)} / ${duration(s.latency.p95)}`,
    `${duration(s.latency.rawP50)} / ${duration(s.latency.rawP95)}`,
    `${fmt(s.speed)}× / ${fmt(s.realSeconds)} s`,
    s.ranAt.slice(0, 16).replace('T', ' '),
  ]);
  const polls = results.map((s) => [
    name(s),
    fmt(s.polls.ok),
    fmt(s.polls.deferred),
    fmt(s.polls.skipped),
    fmt(s.polls.failed),
    `${fmt(s.polls.upserts ?? s.polls.restarts)} (${fmt(s.polls.restarts)}) / ${s.polls.held === undefined ? '–' : fmt(s.polls.held)}`,
    fmt(s.polls.lagged),
    `${fmt(s.lag.p50, 1)} / ${fmt(s.lag.p95, 1)} ms`,
    `${fmt(s.pollMs.p50, 1)} / ${fmt(s.pollMs.p95, 1)} ms`,
    `${fmt(s.latency.processingP95, 1)} ms`,
  ]);
  const thirds = results.map((s) => {
    // perDay ends at the last day with a request: a month that ran dry early still has s.days days.
    const days = [...(s.perDay ?? [])];
    while (days.length < Math.round(s.days)) days.push(0);
    const third = Math.max(1, Math.round(days.length / 3));
    const avg = (from: number) => {
      const slice = days.slice(from, from + third);
      return slice.length === 0 ? Number.NaN : slice.reduce((a, b) => a + b, 0) / third;
    };
    return [
      name(s),
      fmt(s.plannable / Math.max(1, s.days)),
      `${fmt(avg(0))} / ${fmt(avg(third))} / ${fmt(avg(2 * third))}`,
      s.idleAtEndMs === undefined ? '' : duration(Math.max(0, s.idleAtEndMs)),
    ];
  });
  return [
    `Scenarios: ${results.map(name).join(', ')}. By default the suite runs ${DEFAULT.join(' and ')}; \`--full\` runs Studio and Publisher × 10, 100, 1,000 books, ` +
      '`--scenarios publisher-100,…` any of them (a scenario not run keeps its last result and date). ' +
      'Each book is watched in one marketplace (book + keywords targets) plus one sales target per marketplace; ' +
      'reserve 10%; rules as the defaults but keyword_rank_drop and bsr_worsened with `for: 1`, so an event alerts on the first poll that sees it ' +
      '(the default `for: 2` adds one cadence on purpose). Up to 10 books carry scripted events.',
    '',
    table(
      [
        'scenario',
        'targets',
        'demand / plannable',
        'used',
        'used / plannable',
        '429s / over limit',
        'wasted / sent',
        'busiest minute (sliding) / limit',
        'cadence kw / book (end)',
        'events detected',
        'latency p50 / p95 (1×)',
        'latency p50 / p95 (raw sim)',
        'speed / real',
        'run (UTC)',
      ],
      rows,
      'lrrrrrrrrrrrrl',
    ),
    '',
    'Latency (1×) = wait from the event to the scheduled time of the first poll that could see it, plus that poll’s real ' +
      'processing time until its alert; raw = alert time minus event time on the accelerated sim clock, where every real ms ' +
      'of queueing and processing counts `speed` times over. Demand = requests the useful cadences would take this month (learned costs).',
    '',
    table(
      ['scenario', 'plannable / day', 'requests / day: first, second, last third', 'no request in the last'],
      thirds,
    ),
    '',
    table(
      [
        'scenario',
        'polls ok',
        'deferred',
        'skipped',
        'failed',
        'cadence changes applied (restarted < 5 min) / held in band',
        'intervals lost to lag',
        'start lag p50 / p95 (real)',
        'poll time p50 / p95 (real)',
        'detecting poll p95 (real)',
      ],
      polls,
    ),
    '',
    'Cadence changes: re-plans that moved a scheduler’s cadence (an upsert that keeps its phase: the next poll is the last one + ' +
      'the new cadence); restarted: of those, the ones already overdue at the new cadence, run within the first-run spread ' +
      '(< 5 min); before phase keeping every change restarted so. Held: re-plans that left a cadence up to 5% slower than ' +
      'the plan alone (hysteresis).',
  ].join('\n');
}
