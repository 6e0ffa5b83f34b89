/**
 * One budget scenario end to end: read the simulated world, write the workspace config, pick a
 * speed for the month, start the simulator process, run the month (lib/month.ts) while tallying the
 * simulator's request log, and summarise requests, refusals and detection latency.
 */
import type { WorkspaceConfig } from '../../src/config/schema.ts';
import { ConfigTargetRegistry } from '../../src/poll/registry.ts';
import { planWorkspace } from '../../src/poll/schedule.ts';
import { parsePlan, SimControlClient, startSimulator } from '../../src/sim/index.ts';
import type { BenchContext } from './context.ts';
import { configOrThrow, type MonthRun, runMonth } from './month.ts';
import { SIGNAL_KEYWORD } from './month-events.ts';
import { RequestTally } from './request-tally.ts';
import { startSimProcess } from './sim-process.ts';
import { median, percentile } from './stats.ts';

export interface MonthScenario {
  plan: 'studio' | 'publisher';
  books: number;
  /** Simulate only this many days from the month's start (quick runs). */
  days?: number;
  /** Every book tracks this many listed keywords (default: 20 on event books, top 100 on the others). */
  keywords?: number;
  keywordSource?: 'series' | 'snapshot';
}

export interface MonthSummary {
  /** When this scenario ran (ISO). */
  ranAt: string;
  plan: string;
  books: number;
  keywords?: number;
  keywordSource?: string;
  days: number;
  targets: number;
  speed: number;
  realSeconds: number;
  perMinute: number;
  plannable: number;
  demand: number;
  used: number;
  utilisation: number;
  /** Requests the simulator received, and of those the ones no finished poll used (absent in
   * results stored before they were counted). */
  sent?: number;
  wasted?: number;
  refused: number;
  refusedByCode: Record<string, number>;
  otherFailures: Record<string, number>;
  overLimit: number;
  busiestMinute: number;
  busiestSlidingMinute: number;
  /** Counted requests per sim day. */
  perDay: number[];
  /** Sim ms from the last counted request to the end of the span (the budget ran dry that early). */
  idleAtEndMs: number;
  /** Results stored before phase keeping have no `upserts` nor `held` (every upsert restarted). */
  polls: Omit<MonthRun['polls'], 'upserts' | 'held'> & Partial<Pick<MonthRun['polls'], 'upserts' | 'held'>>;
  lag: { p50: number; p95: number };
  pollMs: { p50: number; p95: number };
  cadences: { keywords: number; book: number };
  /** Series source: keyword hours kept in the history / hours from the month's start to each target's last poll. */
  hours?: { judged: number; existed: number };
  latency: {
    events: number;
    detected: number;
    missed: number;
    p50: number;
    p95: number;
    rawP50: number;
    rawP95: number;
    bound: number;
    /** p95 over events of latency − (1.1 × cadence + 2 s): ≤ 0 meets the goal. */
    p95Margin: number;
    processingP95: number;
    byKind: Record<string, { detected: number; missed: number; p95: number }>;
  };
}

const KEY = 'sk_bench_budget_0123456789';
const MONTH_START = Date.UTC(2026, 10, 1);
const MONTH_END = Date.UTC(2026, 11, 1);
const EVENT_BOOKS = 10;
/** Polls a second the month is paced for: well under what 2 busy cores sustain (~240/s when idle), so lag stays small. */
const POLL_RATE = 120;
const MIN_REAL_SECONDS = 60;
/** Real seconds the simulator runs before the month starts: the worker side starts within them. */
const LEAD_SECONDS = 3;

export async function simulateMonth(
  ctx: BenchContext,
  s: MonthScenario,
  random: () => number,
): Promise<MonthSummary> {
  const ranAt = new Date().toISOString();
  const end = s.days === undefined ? MONTH_END : MONTH_START + s.days * 86_400_000;
  const span = (end - MONTH_START) / (MONTH_END - MONTH_START);
  const seed = 11;
  const world = await readWorld(seed, s.books);
  const prefix = ctx.prefix(`budget-${s.plan}-${s.books}`);
  const raw = (baseUrl: string) => ({
    redis: { url: ctx.redisUrl, prefix },
    workspaces: [
      {
        id: 'bench',
        baseUrl,
        apiKey: KEY,
        plan: s.plan,
        books: world.books.map((b, i) => ({
          asin: b.asin,
          marketplaces: [b.marketplaces[0]!],
          keywords:
            s.keywords !== undefined
              ? [...(i < EVENT_BOOKS ? [SIGNAL_KEYWORD] : []), ...b.keywords].slice(0, s.keywords)
              : i < EVENT_BOOKS
                ? [SIGNAL_KEYWORD, ...b.keywords.slice(0, 19)]
                : { top: 100 },
        })),
        ...(s.keywordSource === undefined ? {} : { keywordSource: s.keywordSource }),
      },
    ],
    rules: [
      { id: 'keyword-drop', kind: 'keyword_rank_drop', positionsLost: 5, leaveTopN: 10, for: 1 },
      { id: 'bsr-worse', kind: 'bsr_worsened', for: 1 },
      { id: 'bsr-removed', kind: 'bsr_removed' },
      { id: 'royalty-change', kind: 'royalty_change' },
      { id: 'sales-revision', kind: 'sales_revision' },
      { id: 'source-health', kind: 'source_health' },
    ],
  });
  const draft = configOrThrow(raw('http://127.0.0.1:9'));
  const ws = draft.workspaces[0]!;
  const targets = new ConfigTargetRegistry(draft).all('bench');
  const plannable = Math.floor(ws.plan.perMonth * (1 - ws.reserve) + 1e-6);
  const demandAt = (costs: ReadonlyMap<string, number | null>) => demandOf(ws, targets, costs);
  const expected = Math.min(demandAt(new Map()), plannable) * span;
  const realSeconds = Math.max(MIN_REAL_SECONDS * Math.min(1, span * 3), expected / POLL_RATE);
  const speed = Math.round((end - MONTH_START) / (realSeconds * 1000));

  const sim = await startSimProcess({
    seed,
    books: s.books,
    campaigns: 0,
    speed,
    startAt: new Date(MONTH_START - LEAD_SECONDS * 1000 * speed).toISOString(),
    keys: [{ key: KEY, workspace: 'bench', plan: parsePlan(s.plan) }],
    requestLogLimit: 200_000,
  });
  ctx.defer(() => sim.close());
  const control = new SimControlClient(sim, { connections: 2 });
  ctx.defer(() => control.close());
  const tally = new RequestTally(MONTH_START, end);
  let pulling = Promise.resolve();
  const timer = setInterval(() => {
    pulling = pulling
      .then(() => tally.pull(control))
      .catch((error: unknown) => ctx.log(`log pull: ${error}`));
  }, 1_000);
  const config = configOrThrow(raw(sim.url));
  const eventBooks = world.books
    .slice(0, EVENT_BOOKS)
    .map((b) => ({ asin: b.asin, marketplace: b.marketplaces[0]! }));
  let month: Awaited<ReturnType<typeof runMonth>>;
  try {
    month = await runMonth({
      config,
      sim,
      speed,
      monthStart: MONTH_START,
      monthEnd: end,
      eventBooks,
      random,
      log: ctx.log,
    });
  } finally {
    clearInterval(timer);
    await pulling;
  }
  await tally.pull(control);
  const costs = new Map<string, number | null>();
  for (const t of targets) costs.set(t.ref.id, (await month.runtime.store.getHealth(t.ref)).costPerPoll);
  const hours = s.keywordSource === 'series' ? await hoursJudged(month.runtime, targets, end) : undefined;
  await month.runtime.close();
  await sim.close();

  const samples = month.events.samples.filter((e) => e.detected || e.missed);
  const detected = samples.filter((e) => e.detected);
  const latencies = detected.map((e) => e.waitMs! + e.processingMs!);
  const kinds = ['keyword', 'bsr'] as const;
  const planned = Math.floor(plannable * span);
  const cadenceOfKind = (prefix: string) =>
    median([...month.cadences].filter(([id]) => id.startsWith(prefix)).map(([, ms]) => ms));
  return {
    ranAt,
    plan: s.plan,
    books: s.books,
    ...(s.keywords === undefined ? {} : { keywords: s.keywords }),
    ...(s.keywordSource === undefined ? {} : { keywordSource: s.keywordSource }),
    days: (end - MONTH_START) / 86_400_000,
    targets: targets.length,
    speed,
    realSeconds: month.realSeconds,
    perMinute: ws.plan.perMinute,
    plannable: planned,
    demand: Math.round(demandAt(costs) * span),
    used: tally.counted,
    utilisation: tally.counted / planned,
    sent: tally.sent,
    wasted: Math.max(0, tally.sent - month.requestsUsed),
    refused: tally.refusedTotal(),
    refusedByCode: Object.fromEntries(tally.refused),
    otherFailures: Object.fromEntries(tally.failed),
    overLimit:
      Math.max(0, tally.busiestSlidingMinute() - ws.plan.perMinute) + Math.max(0, tally.counted - planned),
    busiestMinute: tally.busiestFixedMinute(),
    busiestSlidingMinute: tally.busiestSlidingMinute(),
    perDay: tally.perDay,
    idleAtEndMs: end - tally.lastCountedAt,
    polls: month.polls,
    lag: { p50: percentile(month.lagRealMs, 0.5), p95: percentile(month.lagRealMs, 0.95) },
    pollMs: { p50: percentile(month.pollRealMs, 0.5), p95: percentile(month.pollRealMs, 0.95) },
    cadences: { keywords: cadenceOfKind('keywords/'), book: cadenceOfKind('book/') },
    ...(hours === undefined ? {} : { hours }),
    latency: {
      events: samples.length,
      detected: detected.length,
      missed: samples.length - detected.length,
      p50: percentile(latencies, 0.5),
      p95: percentile(latencies, 0.95),
      rawP50: percentile(
        detected.map((e) => e.alertAt! - e.appliedAt),
        0.5,
      ),
      rawP95: percentile(
        detected.map((e) => e.alertAt! - e.appliedAt),
        0.95,
      ),
      bound: median(samples.map((e) => e.cadenceMs)),
      p95Margin: percentile(
        detected.map((e, i) => latencies[i]! - (1.1 * e.cadenceMs + 2_000)),
        0.95,
      ),
      processingP95: percentile(
        detected.map((e) => e.processingMs!),
        0.95,
      ),
      byKind: Object.fromEntries(
        kinds.map((kind) => {
          const of = samples.filter((e) => e.kind === kind);
          const hit = of.filter((e) => e.detected);
          return [
            kind,
            {
              detected: hit.length,
              missed: of.length - hit.length,
              p95: percentile(
                hit.map((e) => e.waitMs! + e.processingMs!),
                0.95,
              ),
            },
          ];
        }),
      ),
    },
  };
}

/** The world's first `books` account books, from a throw-away simulator with a frozen clock. */
async function readWorld(seed: number, books: number) {
  const sim = await startSimulator({
    seed,
    books,
    campaigns: 0,
    speed: 0,
    startAt: new Date(MONTH_START).toISOString(),
  });
  const control = new SimControlClient(sim, { connections: 2 });
  try {
    return await control.world();
  } finally {
    await control.close();
    await sim.close();
  }
}

/** Requests the targets would take this whole month at their useful cadences. */
function demandOf(
  ws: WorkspaceConfig,
  targets: ReturnType<ConfigTargetRegistry['all']>,
  costs: ReadonlyMap<string, number | null>,
): number {
  const unlimited = { ...ws, plan: { ...ws.plan, perMinute: 1e9, perMonth: 1e15 } };
  return planWorkspace(unlimited, targets, costs, 0, MONTH_START).projectedUse;
}

/**
 * Hours of every tracked keyword the history kept (each judged hour is written there), against the
 * hours that existed from the month's start to the hour of each target's last poll.
 */
async function hoursJudged(
  runtime: MonthRun['runtime'],
  targets: ReturnType<ConfigTargetRegistry['all']>,
  end: number,
): Promise<{ judged: number; existed: number }> {
  const history = runtime.pollDeps.history;
  let judged = 0;
  let existed = 0;
  for (const t of targets) {
    if (t.kind !== 'keywords' || !('list' in t.keywords) || history === undefined) continue;
    const lastPollAt = (await runtime.store.getHealth(t.ref)).lastPollAt;
    if (lastPollAt === null) continue;
    const lastHour =
      Math.min(Math.floor(lastPollAt / 3_600_000), Math.floor((end - 1) / 3_600_000)) * 3_600_000;
    const kept = await history.read(
      { workspace: t.ref.workspace, asin: t.asin, marketplace: t.marketplace },
      MONTH_START,
      lastHour,
    );
    for (const keyword of t.keywords.list) judged += kept.get(keyword)?.length ?? 0;
    existed += t.keywords.list.length * ((lastHour - MONTH_START) / 3_600_000 + 1);
  }
  return { judged, existed };
}
