/**
 * Linear on a local Redis Cluster: the same fleet of workspaces (3 shards) runs against a Cluster
 * of 1 master and then of 3 masters, started here on loopback (`redis-server --cluster-enabled
 * yes`; the 3 masters joined by `redis-cli --cluster create`, the lone master given every slot by
 * `CLUSTER ADDSLOTSRANGE`, since `--cluster create` wants 3 masters at least). Each run: real
 * workers (`startWorkers`) polling the simulator on fixed cadences; once every target has its
 * baseline, a measured window in which one new ARC review makes every workspace alert to a local
 * webhook receiver. Reported per master: keys, commands, Redis CPU; the CPU per poll of each run;
 * errors (CROSSSLOT, MOVED, ASK) replied by any master and surfacing in a job; alerts lost.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { Runtime } from '../src/app/runtime.ts';
import { startWorkers } from '../src/app/start.ts';
import { silentLogger } from '../src/ops/logger.ts';
import { Shutdown } from '../src/ops/shutdown.ts';
import { type RunningSimulator, SimControlClient, startSimulator } from '../src/sim/index.ts';
import { type PrivateRedis, startPrivateRedis } from '../src/tools/private-redis.ts';
import { startHttpReceiver } from '../src/tools/receivers/http.ts';
import type { BenchContext, BenchResult } from './lib/context.ts';
import { fmt, percent, table } from './lib/format.ts';
import { configOrThrow } from './lib/month.ts';
import { diff, type RedisStats, readStats, total } from './lib/redis-stats.ts';

const SHARDS = 3;
const keyOf = (ws: string) => `sk_bench_cluster_${ws}_0123456789`;
const REDIRECTS = /CROSSSLOT|MOVED|ASK/;

async function until(what: string, done: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function startCluster(masters: number): Promise<PrivateRedis[]> {
  const nodes: PrivateRedis[] = [];
  for (let i = 0; i < masters; i += 1) {
    nodes.push(
      await startPrivateRedis({
        extraArgs: [
          '--cluster-enabled',
          'yes',
          '--cluster-require-full-coverage',
          'no',
          '--cluster-announce-ip',
          '127.0.0.1',
        ],
      }),
    );
  }
  const run = promisify(execFile);
  if (masters >= 3) {
    await run('redis-cli', [
      '--cluster',
      'create',
      ...nodes.map((n) => `127.0.0.1:${n.port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
  } else {
    await run('redis-cli', [
      '-h',
      '127.0.0.1',
      '-p',
      String(nodes[0]?.port),
      'CLUSTER',
      'ADDSLOTSRANGE',
      '0',
      '16383',
    ]);
  }
  await until(
    'cluster_state:ok on every node',
    async () => {
      const states = await Promise.all(
        nodes.map(async (n) => {
          const redis = new Redis(n.url);
          try {
            return String(await redis.call('CLUSTER', 'INFO')).includes('cluster_state:ok');
          } finally {
            redis.disconnect();
          }
        }),
      );
      return states.every(Boolean);
    },
    30_000,
  );
  return nodes;
}

export interface ClusterRun {
  masters: number;
  polls: number;
  seconds: number;
  perMaster: { port: number; keys: number; commands: number; cpuUsec: number; errors: number }[];
  cpuPerPollUsec: number;
  /** Net of each master's idle CPU over the window. */
  netCpuPerPollUsec: number;
  idleCpuPerSecondUsec: number[];
  commandsPerPoll: number;
  /** Time inside commands (INFO commandstats), all masters, per poll. */
  commandUsecPerPoll: number;
  redirectsReplied: number;
  redirectsSurfacing: number;
  jobsFailed: number;
  alertsExpected: number;
  alertsReceived: number;
}

async function runFleet(
  ctx: BenchContext,
  sim: RunningSimulator,
  masters: number,
  workspaces: string[],
): Promise<ClusterRun> {
  const nodes = await startCluster(masters);
  // Each master's CPU with nothing to do (housekeeping, the cluster bus), taken off the window's.
  const idleMs = ctx.quick ? 2_000 : 5_000;
  const idleAdmins = nodes.map((n) => new Redis(n.url));
  const idleBefore = await Promise.all(idleAdmins.map((admin) => readStats(admin)));
  await new Promise((resolve) => setTimeout(resolve, idleMs));
  const idleCpu = (await Promise.all(idleAdmins.map((admin) => readStats(admin)))).map(
    (after, i) => diff(after, idleBefore[i] as RedisStats).cpuUsec / idleMs,
  );
  for (const admin of idleAdmins) admin.disconnect();
  const receiver = await startHttpReceiver();
  const control = new SimControlClient({ url: sim.url, adminToken: sim.adminToken });
  const shutdown = new Shutdown(silentLogger());
  try {
    const campaign = sim.catalogue.campaigns[0];
    if (campaign === undefined) throw new Error('the simulator has no campaign');
    const cadence = ctx.quick ? '20s' : '30s';
    const config = configOrThrow({
      redis: { url: nodes[0]?.url, prefix: '{shelfwatch}', cluster: true, shards: { count: SHARDS } },
      workspaces: workspaces.map((id) => ({
        id,
        baseUrl: sim.url,
        apiKey: keyOf(id),
        plan: 'custom:100000:10000000',
        sales: false,
        keywordSource: 'snapshot',
        books: sim.catalogue.books.map((book) => ({ asin: book.asin, keywords: { top: 10 } })),
        campaigns: [{ id: campaign.campaignId }],
        cadence: { book: cadence, keywords: cadence, reviews: cadence },
      })),
      rules: [{ id: 'new-review', kind: 'review_new' }],
      channels: [
        {
          id: 'hook',
          type: 'webhook',
          url: receiver.url,
          secret: 'whsec_bench_cluster_0123',
          groupWait: '1s',
        },
      ],
    });
    const runtime = new Runtime({ config, logger: silentLogger(), version: 'bench' });
    await runtime.connect(10_000);
    shutdown.add('runtime', () => runtime.close());
    let polls = 0;
    let jobsFailed = 0;
    let redirectsSurfacing = 0;
    await startWorkers(runtime, shutdown, {
      onWorkers: ({ poll, deliver }) => {
        poll.on('completed', () => {
          polls += 1;
        });
        for (const worker of [poll, deliver]) {
          worker.on('failed', (_job, error) => {
            jobsFailed += 1;
            if (REDIRECTS.test(error.message)) redirectsSurfacing += 1;
          });
          worker.on('error', (error) => {
            if (REDIRECTS.test(error.message)) redirectsSurfacing += 1;
          });
        }
      },
    });
    const targets = workspaces.flatMap((ws) => runtime.registry.all(ws));
    await until(
      'a baseline of every target',
      async () =>
        (await Promise.all(targets.map((t) => runtime.store.get(t.ref)))).every((s) => s !== undefined),
      180_000,
    );
    const admins = nodes.map((n) => new Redis(n.url));
    const read = () => Promise.all(admins.map((admin) => readStats(admin)));
    try {
      const before = await read();
      const pollsBefore = polls;
      const started = Date.now();
      const lengthMs = ctx.quick ? 15_000 : 60_000;
      await new Promise((resolve) => setTimeout(resolve, lengthMs / 2));
      await control.event({
        type: 'review',
        campaign_id: campaign.campaignId,
        platform: 'audible',
        rating: 5,
        body: 'A review for every workspace',
        reviewer: 'Cluster Bench',
      });
      const alerted = () =>
        new Set(
          receiver.requests.flatMap(
            (r) =>
              (JSON.parse(r.raw) as { alerts?: { kind: string; workspace: string }[] }).alerts
                ?.filter((a) => a.kind === 'review_new')
                .map((a) => a.workspace) ?? [],
          ),
        );
      await until('every workspace alerted', async () => alerted().size >= workspaces.length, 120_000).catch(
        () => {},
      );
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + lengthMs - Date.now())));
      const after = await read();
      const deltas: RedisStats[] = after.map((a, i) => diff(a, before[i] as RedisStats));
      const measured = polls - pollsBefore;
      const windowMs = Date.now() - started;
      const cpu = deltas.reduce((sum, d) => sum + d.cpuUsec, 0);
      const idle = idleCpu.reduce((sum, perMs) => sum + perMs * windowMs, 0);
      const redirectsReplied = deltas.reduce(
        (sum, d) =>
          sum + [...d.errors].filter(([name]) => REDIRECTS.test(name)).reduce((s, [, n]) => s + n, 0),
        0,
      );
      return {
        masters,
        polls: measured,
        seconds: (Date.now() - started) / 1000,
        perMaster: deltas.map((d, i) => ({
          port: nodes[i]?.port ?? 0,
          keys: d.keys,
          commands: total(d.calls),
          cpuUsec: d.cpuUsec,
          errors: total(d.errors),
        })),
        cpuPerPollUsec: cpu / measured,
        netCpuPerPollUsec: (cpu - idle) / measured,
        idleCpuPerSecondUsec: idleCpu.map((perMs) => perMs * 1000),
        commandsPerPoll: deltas.reduce((sum, d) => sum + total(d.calls), 0) / measured,
        commandUsecPerPoll: deltas.reduce((sum, d) => sum + total(d.usec), 0) / measured,
        redirectsReplied,
        redirectsSurfacing,
        jobsFailed,
        alertsExpected: workspaces.length,
        alertsReceived: alerted().size,
      };
    } finally {
      for (const admin of admins) admin.disconnect();
    }
  } finally {
    await shutdown.run(10_000);
    await control.close();
    await receiver.close();
    await Promise.all(nodes.map((n) => n.stop()));
  }
}

export async function run(ctx: BenchContext): Promise<BenchResult> {
  // 90 ids split 29/30/31 over 3 shards by their hash (45 split 15/15/15); placement by hash evens
  // out as fleets grow (±√n), and a small fleet can be pinned.
  const count = ctx.quick ? 45 : 90;
  const workspaces = Array.from({ length: count }, (_, i) => `fleet-${String(i + 1).padStart(3, '0')}`);
  const sim = await startSimulator({
    seed: 29,
    books: 1,
    campaigns: 1,
    keys: workspaces.map((ws) => ({
      key: keyOf(ws),
      workspace: ws,
      plan: { name: 'custom', perMinute: 100_000, perMonth: 10_000_000 },
    })),
  });
  ctx.defer(() => sim.close());
  const runs: ClusterRun[] = [];
  for (const masters of [1, 3]) {
    ctx.log(`${masters} master(s): ${count} workspaces, ${SHARDS} shards`);
    runs.push(await runFleet(ctx, sim, masters, workspaces));
  }
  const [one, three] = runs as [ClusterRun, ClusterRun];
  const shares = (r: ClusterRun, of: 'keys' | 'commands') => {
    const sum = r.perMaster.reduce((s, m) => s + m[of], 0);
    return r.perMaster.map((m) => m[of] / sum);
  };
  const within = (xs: number[]) => xs.every((x) => Math.abs(x - 1 / 3) <= 0.08);
  const cpuRatio = three.netCpuPerPollUsec / one.netCpuPerPollUsec;
  const rows = runs.flatMap((r) =>
    r.perMaster.map((m, i) => [
      `${r.masters}`,
      `:${m.port}`,
      fmt(m.keys),
      percent(shares(r, 'keys')[i] ?? 0),
      fmt(m.commands),
      percent(shares(r, 'commands')[i] ?? 0),
      fmt(m.cpuUsec / 1000),
      fmt(m.errors),
    ]),
  );
  const runRows = runs.map((r) => [
    `${r.masters}`,
    fmt(r.polls),
    fmt(r.seconds, 0),
    fmt(r.commandsPerPoll, 1),
    fmt(r.commandUsecPerPoll),
    fmt(r.cpuPerPollUsec),
    fmt(r.netCpuPerPollUsec),
    r.idleCpuPerSecondUsec.map((u) => fmt(u / 1000, 1)).join(' / '),
    fmt(1e6 / r.netCpuPerPollUsec),
    fmt(r.redirectsReplied),
    fmt(r.redirectsSurfacing),
    fmt(r.jobsFailed),
    `${r.alertsReceived} of ${r.alertsExpected}`,
  ]);
  const errors = runs.reduce((s, r) => s + r.redirectsSurfacing, 0);
  const lost = runs.reduce((s, r) => s + (r.alertsExpected - r.alertsReceived), 0);
  const details = [
    `${count} workspaces (1 book: book and keywords targets, top 10 keywords; 1 ARC campaign) on the simulator, ` +
      `redis.shards.count ${SHARDS}, fixed cadence ${ctx.quick ? '20 s' : '30 s'} per target, the workers of one process ` +
      '(`startWorkers`); a loopback Cluster of 1 master, then of 3 (`redis-cli --cluster create`, no replicas). ' +
      'Measured after every target has its baseline, over a window in which one new review makes every workspace alert ' +
      "to a local webhook receiver. Redis CPU: INFO cpu of each master (user + system); per poll: all masters' CPU over the polls completed in the window, raw and net of each master's idle CPU (measured for a few seconds before the fleet started: housekeeping, the cluster bus).",
    '',
    table(['masters', 'node', 'keys', 'share', 'commands', 'share', 'Redis CPU ms', 'errors replied'], rows),
    '',
    table(
      [
        'masters',
        'polls',
        's',
        'commands/poll',
        'command µs/poll',
        'Redis CPU µs/poll',
        'net of idle',
        'idle ms/s per master',
        'polls/s per core (net)',
        'MOVED/ASK/CROSSSLOT replied',
        'surfacing in jobs',
        'jobs failed',
        'workspaces alerted',
      ],
      runRows,
    ),
  ].join('\n');
  return {
    title: 'Linear on a local Redis Cluster (1 and 3 masters)',
    summary: [
      {
        metric: '3 masters: share of keys per master',
        value: shares(three, 'keys')
          .map((s) => percent(s, 0))
          .join(' / '),
        goal: 'each 33% ± 8%',
        met: within(shares(three, 'keys')),
      },
      {
        metric: '3 masters: share of commands per master',
        value: shares(three, 'commands')
          .map((s) => percent(s, 0))
          .join(' / '),
        goal: 'each 33% ± 8%',
        met: within(shares(three, 'commands')),
      },
      {
        metric: 'Redis CPU per poll net of idle, 3 masters vs 1',
        value: `${fmt(three.netCpuPerPollUsec)} µs`,
        reference: `${fmt(one.netCpuPerPollUsec)} µs (raw ${fmt(three.cpuPerPollUsec)} vs ${fmt(one.cpuPerPollUsec)})`,
        ratio: `${cpuRatio.toFixed(2)}×`,
        goal: 'within 15%',
        met: Math.abs(cpuRatio - 1) <= 0.15,
      },
      {
        metric: 'CROSSSLOT/MOVED surfacing, alerts lost',
        value: `${errors}, ${lost}`,
        goal: '0, 0',
        met: errors === 0 && lost === 0,
      },
    ],
    details,
    data: { runs },
  };
}
