/**
 * What a poll costs Redis, by target kind, and what a delivered alert costs: Redis commands,
 * command microseconds (`INFO commandstats`), the server process's CPU (`used_cpu_user` +
 * `used_cpu_sys`: command time plus networking and housekeeping), bytes clients sent and received,
 * and from the CPU the polls per second one Redis core carries.
 *
 * A private redis-server of its own (so every figure is this benchmark's) and the simulator over
 * HTTP; one workspace with books (book and keywords targets), an ARC campaign (reviews) and sales.
 * After a baseline round, each kind's targets are polled in rounds through `processPoll` with the
 * Runtime's real dependencies (lease, budget, snapshot store, history, alert sink), no BullMQ
 * worker running. Alerts: handed to delivery one by one, each waited for at a local webhook
 * receiver, with the delivery worker running (its idle polling counted in, and shown alone).
 */
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { Runtime } from '../src/app/runtime.ts';
import { startDeliverWorker } from '../src/jobs/deliver-job.ts';
import type { Alert } from '../src/model/alert.ts';
import type { TargetKind } from '../src/model/observation.ts';
import { silentLogger } from '../src/ops/logger.ts';
import { processPoll } from '../src/poll/processor.ts';
import { startSimulator } from '../src/sim/index.ts';
import { type PrivateRedis, startPrivateRedis } from '../src/tools/private-redis.ts';
import { startHttpReceiver } from '../src/tools/receivers/http.ts';
import type { BenchContext, BenchResult } from './lib/context.ts';
import { bytes, fmt, table } from './lib/format.ts';
import { configOrThrow } from './lib/month.ts';
import { diff, type RedisStats, readStats, topCommands, total } from './lib/redis-stats.ts';

const KEY = 'sk_bench_cost_0123456789';
const KINDS: TargetKind[] = ['book', 'keywords', 'reviews', 'sales'];

export interface CostRow {
  what: string;
  count: number;
  commands: number;
  commandUsec: number;
  cpuUsec: number;
  netIn: number;
  netOut: number;
  top: string;
  perCore: number;
}

export function costRow(what: string, count: number, d: RedisStats): CostRow {
  const cpuUsec = d.cpuUsec / count;
  return {
    what,
    count,
    commands: total(d.calls) / count,
    commandUsec: total(d.usec) / count,
    cpuUsec,
    netIn: d.netIn / count,
    netOut: d.netOut / count,
    top: topCommands(d.calls, count),
    perCore: cpuUsec > 0 ? 1e6 / cpuUsec : Number.NaN,
  };
}

export function costTable(rows: readonly CostRow[]): string {
  return table(
    [
      'per',
      'measured',
      'commands',
      'command µs',
      'Redis CPU µs',
      'bytes to Redis',
      'bytes from Redis',
      'per Redis core /s',
      'most called',
    ],
    rows.map((r) => [
      r.what,
      fmt(r.count),
      fmt(r.commands, 1),
      fmt(r.commandUsec, 0),
      fmt(r.cpuUsec, 0),
      bytes(r.netIn),
      bytes(r.netOut),
      fmt(r.perCore),
      r.top,
    ]),
    'lrrrrrrrl',
  );
}

function deliveryAlert(n: number): Alert {
  const asin = `B0COST${String(n % 997).padStart(4, '0')}`;
  // Any kind with keyword facts: this measures delivery, not how each kind reads.
  return <Alert>{
    fingerprint: `cost${String(n).padStart(6, '0')}${'0'.repeat(22)}`,
    workspace: 'cost',
    ruleId: 'keyword_rank_drop',
    kind: 'keyword_rank_drop',
    severity: 'warning',
    status: 'firing',
    subject: { asin, marketplace: 'US', keyword: `keyword ${n}` },
    title: `keyword rank drop on ${asin} (US) [cost-${n}]`,
    facts: { keyword: `keyword ${n}`, asin, marketplace: 'US', before: 3, after: 18 },
    observedAt: Date.now(),
  };
}

async function measure(redis: Redis, work: () => Promise<void>): Promise<{ stats: RedisStats; ms: number }> {
  const before = await readStats(redis);
  const start = performance.now();
  await work();
  const ms = performance.now() - start;
  return { stats: diff(await readStats(redis), before), ms };
}

export async function run(ctx: BenchContext): Promise<BenchResult> {
  const rounds = ctx.quick ? 3 : 20;
  const alertCount = ctx.quick ? 20 : 200;
  const server: PrivateRedis = await startPrivateRedis();
  ctx.defer(() => server.stop());
  const sim = await startSimulator({
    seed: 29,
    books: 4,
    campaigns: 1,
    keys: [
      { key: KEY, workspace: 'cost', plan: { name: 'custom', perMinute: 100_000, perMonth: 10_000_000 } },
    ],
  });
  ctx.defer(() => sim.close());
  const receiver = await startHttpReceiver();
  ctx.defer(() => receiver.close());
  const campaign = sim.catalogue.campaigns[0];
  if (campaign === undefined) throw new Error('the simulator has no campaign');
  const config = configOrThrow({
    redis: { url: server.url, prefix: '{shelfwatch}' },
    workspaces: [
      {
        id: 'cost',
        baseUrl: sim.url,
        apiKey: KEY,
        plan: 'custom:100000:10000000',
        keywordSource: 'snapshot',
        books: sim.catalogue.books.map((book) => ({ asin: book.asin, keywords: { top: 20 } })),
        campaigns: [{ id: campaign.campaignId }],
      },
    ],
    channels: [{ id: 'hook', type: 'webhook', url: receiver.url, secret: 'whsec_bench_cost_secret_0123' }],
  });
  const runtime = new Runtime({
    config,
    logger: silentLogger(),
    version: 'bench',
    channelSettings: new Map([
      ['hook', { groupWaitMs: 0, groupIntervalMs: 0, minIntervalMs: 0, paceKey: 'hook' }],
    ]),
  });
  await runtime.connect();
  ctx.defer(() => runtime.close());
  const redis = new Redis(server.url);
  ctx.defer(() => redis.quit());

  const signal = new AbortController().signal;
  const targets = runtime.registry.all('cost');
  const poll = async (targetId: string) => {
    const result = await processPoll(
      runtime.pollDeps,
      { workspace: 'cost', targetId },
      { signal, pollTimeMs: runtime.clock.now() },
    );
    if (result.status !== 'ok') throw new Error(`poll of ${targetId}: ${JSON.stringify(result)}`);
  };
  const baseline = await measure(redis, async () => {
    for (const target of targets) await poll(target.ref.id);
  });
  const rows: CostRow[] = [costRow('baseline poll (first, any kind)', targets.length, baseline.stats)];
  for (const kind of KINDS) {
    const ofKind = targets.filter((t) => t.kind === kind);
    if (ofKind.length === 0) continue;
    const { stats } = await measure(redis, async () => {
      for (let r = 0; r < rounds; r += 1) for (const target of ofKind) await poll(target.ref.id);
    });
    rows.push(costRow(`poll: ${kind}`, ofKind.length * rounds, stats));
    ctx.log(`${kind}: ${fmt(rows.at(-1)?.cpuUsec ?? 0)} µs of Redis CPU per poll`);
  }

  const stopping = new AbortController();
  const worker = startDeliverWorker({
    connection: runtime.redis,
    prefix: runtime.prefix,
    concurrency: 1,
    deps: runtime.deliveryDeps,
    clock: runtime.clock,
    shutdownSignal: stopping.signal,
  });
  ctx.defer(() => worker.close());
  ctx.defer(() => stopping.abort());
  await worker.waitUntilReady();
  // The alerts the polls raised go out first: the measured deliveries are then alone.
  const drained = async () => {
    const counts = await runtime.deliverQueue.getJobCounts('wait', 'active', 'delayed');
    return (counts.wait ?? 0) + (counts.active ?? 0) + (counts.delayed ?? 0) === 0;
  };
  for (const deadline = Date.now() + 60_000; !(await drained()) && Date.now() < deadline; )
    await new Promise((resolve) => setTimeout(resolve, 200));
  const already = receiver.requests.length;
  const delivered = await measure(redis, async () => {
    for (let n = 0; n < alertCount; n += 1) {
      await runtime.pollDeps.alerts.enqueue([deliveryAlert(n)]);
      await receiver.waitForMessages(already + n + 1, 10_000);
    }
  });
  const idle = await measure(
    redis,
    () => new Promise((resolve) => setTimeout(resolve, ctx.quick ? 1_000 : 5_000)),
  );
  rows.push(costRow('delivered alert (webhook), idle worker included', alertCount, delivered.stats));
  rows.push(costRow('idle delivery worker, per second', idle.ms / 1000, idle.stats));
  const byWhat = new Map(rows.map((r) => [r.what, r]));
  const keywords = byWhat.get('poll: keywords');
  const details = [
    `One workspace on the simulator: ${sim.catalogue.books.length} books (book and keywords targets, top 20 keywords), ` +
      `1 ARC campaign (reviews), sales; a private redis-server (${rounds} rounds of each kind after a baseline round). ` +
      "Redis CPU is the server process's user + system CPU (INFO cpu), command µs the time inside commands (INFO commandstats); " +
      '"per Redis core" is 1,000,000 / Redis CPU µs. Delivered alerts: handed to delivery one at a time and each waited for at a local webhook receiver.',
    '',
    costTable(rows),
  ].join('\n');
  return {
    title: 'Redis cost of a poll and of a delivered alert',
    summary: [
      ...KINDS.flatMap((kind) => {
        const row = byWhat.get(`poll: ${kind}`);
        return row === undefined
          ? []
          : [
              {
                metric: `Redis CPU per ${kind} poll`,
                value: `${fmt(row.cpuUsec)} µs`,
                reference: `${fmt(row.commands, 1)} commands, ${bytes(row.netIn)} written`,
                ratio: `${fmt(row.perCore)} polls/s per core`,
              },
            ];
      }),
      {
        metric: 'Redis CPU per delivered alert',
        value: `${fmt(byWhat.get('delivered alert (webhook), idle worker included')?.cpuUsec ?? Number.NaN)} µs`,
        reference: `${fmt(byWhat.get('delivered alert (webhook), idle worker included')?.commands ?? Number.NaN, 1)} commands`,
      },
    ],
    details,
    data: { rounds, alertCount, rows, keywordsPerCore: keywords?.perCore },
  };
}
