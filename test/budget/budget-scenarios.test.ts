/**
 * The shared budget with the real workers against the simulator, on an accelerated clock shared
 * with the sim (so a plan's minute takes seconds): one worker's clock 30 s ahead must not let the
 * two exceed the plan's minute, and paginated walks in a full window must not throw requests away.
 */
import { it, type TestContext } from 'vitest';
import { Runtime } from '../../src/app/runtime.ts';
import { startWorkers } from '../../src/app/start.ts';
import type { ShelfwatchConfig } from '../../src/config/schema.ts';
import type { PollJobResult } from '../../src/jobs/poll-job.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { Shutdown } from '../../src/ops/shutdown.ts';
import type { RunningSimulator, SimControlClient } from '../../src/sim/index.ts';
import { acceleratedClock, type Clock } from '../../src/util/clock.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { type SimFixture, startSimFixture } from '../helpers/sim.ts';
import { parseOrThrow } from '../poll/engine-harness.ts';
import { maxGrantsInAnySpan } from './budget-helpers.ts';

const PER_MINUTE = 60;
const KEY = 'sk_budget_scenario_0123456789';
const skewPrefix = testPrefix('skew');
const wastePrefix = testPrefix('waste');
const lostPrefix = testPrefix('lost');
testRedis(skewPrefix);
testRedis(wastePrefix);
const lostRedis = testRedis(lostPrefix);
/** What a test started, stopped when that test ends (its own hook: the first two run at once). */
type Defer = TestContext['onTestFinished'];

interface SimRequest {
  path: string;
  status: number | null;
  sim_time: string;
}

async function startSim(defer: Defer, speed: number, books: number): Promise<SimFixture> {
  const fixture = await startSimFixture({
    seed: 11,
    books,
    speed,
    key: KEY,
    workspace: 'ws',
    plan: `custom:${PER_MINUTE}:100000000`,
  });
  defer(() => fixture.close());
  return fixture;
}

function config(prefix: string, sim: RunningSimulator, asins: string[], extra: object): ShelfwatchConfig {
  return parseOrThrow({
    redis: { url: redisUrl(), prefix },
    workspaces: [
      {
        id: 'ws',
        baseUrl: sim.url,
        apiKey: KEY,
        plan: `custom:${PER_MINUTE}:100000000`,
        books: asins.map((asin) => ({ asin, marketplaces: ['US'], keywords: { top: 5 } })),
        ...extra,
      },
    ],
    channels: [{ id: 'log', type: 'log' }],
  });
}

/** A worker process's worth of engine: its runtime and workers, on `clock`. */
async function startEngine(defer: Defer, cfg: ShelfwatchConfig, clock: Clock): Promise<Runtime> {
  const runtime = new Runtime({ config: cfg, logger: silentLogger(), version: 'test', clock });
  await runtime.connect();
  const shutdown = new Shutdown(silentLogger());
  shutdown.add('runtime', () => runtime.close());
  defer(() => shutdown.run(10_000));
  await startWorkers(runtime, shutdown, { replanEveryMs: 3_600_000, janitorEveryMs: 3_600_000 });
  return runtime;
}

async function apiRequests(control: SimControlClient): Promise<SimRequest[]> {
  const all = (await control.requests()) as unknown as SimRequest[];
  return all.filter((r) => r.path.startsWith('/v1/'));
}

/** Waits (real time) until the sim clock has passed `simMs`. */
async function untilSimTime(sim: RunningSimulator, simMs: number): Promise<void> {
  while (sim.clock.now() < simMs) await new Promise((resolve) => setTimeout(resolve, 200));
}

// The first two wait on simulated minutes (a sim and Redis keys each): they run at once.
it.concurrent('two workers, one clock 30 s ahead, a 60/min plan: never over the API minute (no 429, at most 60 in each)', async ({
  expect,
  onTestFinished,
}) => {
  // A request's time in flight counts `speed` times over on the sim clock, and the window's spare
  // second is all the slack there is: at 4× a loaded machine may hold a request up to 250 ms.
  const speed = 4;
  const { sim, control } = await startSim(onTestFinished, speed, 12);
  const asins = (await control.world()).books.slice(0, 12).map((b) => b.asin);
  // 24 targets every 6 s of sim time: 240 requests a minute wanted, 60 allowed.
  const cfg = config(skewPrefix, sim, asins, {
    sales: false,
    cadence: { book: '6s', keywords: '6s' },
  });
  const onTime = acceleratedClock(sim.clock.now(), speed);
  const ahead: Clock = {
    now: () => onTime.now() + 30_000,
    speed,
    fromReal: (realMs) => (onTime.fromReal?.(realMs) ?? realMs) + 30_000,
  };
  const start = sim.clock.now();
  const engines = [
    await startEngine(onTestFinished, cfg, onTime),
    await startEngine(onTestFinished, cfg, ahead),
  ];
  // 110 sim seconds of saturating demand: the window turns over, the skewed worker's grants age.
  await untilSimTime(sim, start + 110_000);
  for (const engine of engines) await engine.workers[0]?.close();

  const log = await apiRequests(control);
  const times = log.map((r) => Date.parse(r.sim_time));
  // Saturated: the two spent about the whole plan (60 a minute for two minutes).
  expect(log.length).toBeGreaterThanOrEqual(PER_MINUTE * 1.5);
  expect(log.filter((r) => r.status === 429)).toEqual([]);
  // The API's own count: each fixed minute of the sim clock.
  expect(busiestFixedMinute(times)).toBeLessThanOrEqual(PER_MINUTE);
  // Any 60 s of arrivals: the window's spare second is the only slack for time in flight, and at 4×
  // a 250 ms stall of this loaded process moves an arrival a whole sim second, so a few may pass
  // it here; before the fix this was 84 (a 429 too), the skewed worker forgetting 30 s of grants.
  expect(maxGrantsInAnySpan(times, 60_000)).toBeLessThanOrEqual(PER_MINUTE + 3);
  // Both workers got requests through: the skewed one was limited, not starved.
  expect(await polledBy(engines[1])).toBeGreaterThan(0);
}, 90_000);

it.concurrent('a full window with paginated targets: at most 1% of the requests sent are thrown away, and reported', async ({
  expect,
  onTestFinished,
}) => {
  const speed = 10;
  const { sim, control } = await startSim(onTestFinished, speed, 40);
  const asins = (await control.world()).books.slice(0, 40).map((b) => b.asin);
  // 40 books' sales over 15 days is 6 pages of 100; the books' own polls keep the window full.
  const cfg = config(wastePrefix, sim, asins.slice(0, 10), {
    sales: true,
    cadence: { book: '5s', keywords: '5s', sales: '20s' },
  });
  const start = sim.clock.now();
  const engine = await startEngine(onTestFinished, cfg, acceleratedClock(start, speed));
  await untilSimTime(sim, start + 180_000);
  await engine.workers[0]?.close();

  const sent = (await apiRequests(control)).length;
  const completed = await engine.pollQueue.getJobs(['completed'], 0, -1);
  const results = completed.map((job) => job.returnvalue as PollJobResult);
  const used = results.reduce((sum, r) => sum + ('requests' in r ? r.requests : 0), 0);
  const salesWalks = results.filter(
    (r, i) => completed[i]?.data.targetId.startsWith('sales') && r.status === 'ok',
  );
  expect(salesWalks.length).toBeGreaterThan(0);
  expect(sent).toBeGreaterThanOrEqual(PER_MINUTE * 2);
  const wasted = sent - used;
  expect(wasted / sent).toBeLessThanOrEqual(0.01);
  const reported = metricValue(await engine.metrics.text(), 'shelfwatch_api_requests_wasted_total');
  expect(reported).toBe(wasted);
}, 90_000);

it("a minute window Redis lost is refilled from the API's X-RateLimit-Remaining on the next answer", async ({
  onTestFinished,
}) => {
  const { sim, control } = await startSim(onTestFinished, 1, 3);
  const asins = (await control.world()).books.slice(0, 1).map((b) => b.asin);
  const cfg = config(lostPrefix, sim, asins, { sales: false });
  const runtime = new Runtime({ config: cfg, logger: silentLogger(), version: 'test' });
  onTestFinished(() => runtime.close());
  await runtime.connect();
  const client = runtime.client('ws');
  const asin = asins[0] ?? '';
  for (let i = 0; i < 3; i++) await client.getBook(asin, { marketplace: 'US' });
  // A crash took the window (AOF everysec loses the last second); the API still counts 3.
  await lostRedis.del(`${lostPrefix}:budget:ws:window`);
  await client.getBook(asin, { marketplace: 'US' });
  const deadline = Date.now() + 5_000;
  while ((await runtime.budget.usage('ws')).minuteUsed < 4) {
    if (Date.now() > deadline)
      throw new Error(`window not refilled: ${(await runtime.budget.usage('ws')).minuteUsed}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
});

function busiestFixedMinute(times: readonly number[]): number {
  const perMinute = new Map<number, number>();
  for (const at of times)
    perMinute.set(Math.floor(at / 60_000), (perMinute.get(Math.floor(at / 60_000)) ?? 0) + 1);
  return Math.max(0, ...perMinute.values());
}

async function polledBy(runtime: Runtime | undefined): Promise<number> {
  if (runtime === undefined) return 0;
  return metricValue(await runtime.metrics.text(), 'shelfwatch_api_requests_total');
}

/** Sum of a metric's series in Prometheus text. */
function metricValue(text: string, name: string): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) total += Number(line.split(' ').pop());
  }
  return total;
}
