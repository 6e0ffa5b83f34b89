/**
 * Linear on a local Redis Cluster: the same fleet of workspaces (3 shards) against a Cluster of 1
 * master and one of 3 masters (`startPrivateCluster`: loopback, the 3 joined by `redis-cli
 * --cluster create`, the lone master given every slot by `CLUSTER ADDSLOTSRANGE`).
 *
 * Side by side: both Clusters and both fleets run at the same time in this process, so the
 * machine's load (other work on a shared machine) weighs on both alike; measured one after the
 * other, minutes apart, the ratio of their CPU per poll moved between 1.08× and 1.27× from one run
 * to the next. The measurement is then repeated: several windows of one cadence each (every
 * target polled about once per window), each giving both fleets' CPU per poll at the same moments,
 * and the ratio reported is the median of the windows' ratios, beside the pooled one. Each
 * master's idle CPU (housekeeping, the cluster bus) is measured before the fleets start, over
 * 10 s, and taken off. One new ARC review in the middle window makes every workspace alert, on
 * both fleets, to their webhook receivers.
 */
import { Redis } from 'ioredis';
import { SimControlClient, startSimulator } from '../src/sim/index.ts';
import { type PrivateCluster, startPrivateCluster } from '../src/tools/private-cluster.ts';
import { type Fleet, fleetKeyOf, REDIRECTS, startFleet } from './lib/cluster-fleet.ts';
import type { BenchContext, BenchResult } from './lib/context.ts';
import { fmt, percent, table } from './lib/format.ts';
import { diff, type RedisStats, readStats, topCommands, total } from './lib/redis-stats.ts';
import { median } from './lib/stats.ts';

const SHARDS = 3;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

async function until(what: string, done: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await sleep(250);
  }
}

/** Each master's CPU µs per ms with nothing to do, every cluster measured over the same interval. */
async function idleCpu(clusters: readonly PrivateCluster[], idleMs: number): Promise<number[][]> {
  const admins = clusters.map((c) => c.nodes.map((n) => new Redis(n.url)));
  try {
    const read = () => Promise.all(admins.map((nodes) => Promise.all(nodes.map((a) => readStats(a)))));
    const before = await read();
    const started = Date.now();
    await sleep(idleMs);
    const after = await read();
    const elapsed = Date.now() - started;
    return after.map((nodes, c) =>
      nodes.map((a, i) => diff(a, before[c]?.[i] as RedisStats).cpuUsec / elapsed),
    );
  } finally {
    for (const admin of admins.flat()) admin.disconnect();
  }
}

export interface WindowFigures {
  polls: number;
  ms: number;
  cpuUsec: number;
  /** CPU net of the masters' idle CPU over the window, per poll. */
  netCpuPerPollUsec: number;
  /** Context switches of all masters' processes in the window: how often a master was woken. */
  wakeups: number;
  /** The longest a poll completed in the window waited past its due time for a worker. */
  maxLagMs: number;
  perMaster: RedisStats[];
}

export interface ClusterRun {
  masters: number;
  windows: WindowFigures[];
  polls: number;
  perMaster: { port: number; keys: number; commands: number; cpuUsec: number; errors: number }[];
  cpuPerPollUsec: number;
  netCpuPerPollUsec: number;
  idleCpuPerSecondUsec: number[];
  commandsPerPoll: number;
  /** Times a master process was woken (context switches), all masters, per poll. */
  wakeupsPerPoll: number;
  /** Time inside commands (INFO commandstats), all masters, per poll. */
  commandUsecPerPoll: number;
  /** The commands most called, all masters, per poll (`NAME×n`). */
  topCommandsPerPoll: string;
  redirectsReplied: number;
  redirectsSurfacing: number;
  jobsFailed: number;
  alertsExpected: number;
  alertsReceived: number;
}

function summarise(fleet: Fleet, idle: number[], windows: WindowFigures[], count: number): ClusterRun {
  const polls = windows.reduce((s, w) => s + w.polls, 0);
  const ms = windows.reduce((s, w) => s + w.ms, 0);
  const cpu = windows.reduce((s, w) => s + w.cpuUsec, 0);
  const perMaster = fleet.cluster.nodes.map((node, i) => {
    const of = windows.map((w) => w.perMaster[i] as RedisStats);
    return {
      port: node.port,
      keys: of.at(-1)?.keys ?? 0,
      commands: of.reduce((s, d) => s + total(d.calls), 0),
      cpuUsec: of.reduce((s, d) => s + d.cpuUsec, 0),
      errors: of.reduce((s, d) => s + total(d.errors), 0),
      usec: of.reduce((s, d) => s + total(d.usec), 0),
      redirects: of.reduce(
        (s, d) => s + [...d.errors].filter(([n]) => REDIRECTS.test(n)).reduce((t, [, v]) => t + v, 0),
        0,
      ),
    };
  });
  const idleTotal = idle.reduce((s, perMs) => s + perMs * ms, 0);
  const calls = new Map<string, number>();
  for (const w of windows)
    for (const d of w.perMaster) for (const [name, n] of d.calls) calls.set(name, (calls.get(name) ?? 0) + n);
  return {
    masters: fleet.masters,
    windows,
    polls,
    perMaster: perMaster.map(({ port, keys, commands, cpuUsec, errors }) => ({
      port,
      keys,
      commands,
      cpuUsec,
      errors,
    })),
    cpuPerPollUsec: cpu / polls,
    netCpuPerPollUsec: (cpu - idleTotal) / polls,
    idleCpuPerSecondUsec: idle.map((perMs) => perMs * 1000),
    commandsPerPoll: perMaster.reduce((s, m) => s + m.commands, 0) / polls,
    wakeupsPerPoll: windows.reduce((s, w) => s + w.wakeups, 0) / polls,
    commandUsecPerPoll: perMaster.reduce((s, m) => s + m.usec, 0) / polls,
    topCommandsPerPoll: topCommands(calls, polls, 10),
    redirectsReplied: perMaster.reduce((s, m) => s + m.redirects, 0),
    redirectsSurfacing: fleet.redirectsSurfacing(),
    jobsFailed: fleet.jobsFailed(),
    alertsExpected: count,
    alertsReceived: fleet.alerted().size,
  };
}

async function measure(
  ctx: BenchContext,
  fleets: readonly Fleet[],
  idle: readonly number[][],
  o: { windows: number; windowMs: number; alert: () => Promise<void> },
): Promise<WindowFigures[][]> {
  const out: WindowFigures[][] = fleets.map(() => []);
  let before = await Promise.all(fleets.map((f) => f.read()));
  let pollsBefore = fleets.map((f) => f.polls());
  let wakeupsBefore = fleets.map((f) => f.wakeups().reduce((a, b) => a + b, 0));
  let startedAt = Date.now();
  for (let w = 0; w < o.windows; w += 1) {
    if (w === Math.floor(o.windows / 2)) await o.alert();
    await sleep(startedAt + o.windowMs - Date.now());
    // Both fleets read at the same moment: the windows are paired.
    const [after, polls, endedAt] = [
      await Promise.all(fleets.map((f) => f.read())),
      fleets.map((f) => f.polls()),
      Date.now(),
    ];
    const wakeups = fleets.map((f) => f.wakeups().reduce((a, b) => a + b, 0));
    for (const [f, fleet] of fleets.entries()) {
      const perMaster = (after[f] as RedisStats[]).map((a, i) => diff(a, before[f]?.[i] as RedisStats));
      const windowPolls = (polls[f] ?? 0) - (pollsBefore[f] ?? 0);
      const ms = endedAt - startedAt;
      const cpuUsec = perMaster.reduce((s, d) => s + d.cpuUsec, 0);
      const idleUsec = (idle[f] ?? []).reduce((s, perMs) => s + perMs * ms, 0);
      out[f]?.push({
        polls: windowPolls,
        ms,
        cpuUsec,
        netCpuPerPollUsec: (cpuUsec - idleUsec) / windowPolls,
        wakeups: (wakeups[f] ?? 0) - (wakeupsBefore[f] ?? 0),
        maxLagMs: fleet.takeMaxLagMs(),
        perMaster,
      });
      ctx.log(
        `  window ${w + 1}/${o.windows}, ${fleet.masters} master(s): ${windowPolls} polls, ` +
          `${fmt((cpuUsec - idleUsec) / windowPolls)} µs net CPU per poll`,
      );
    }
    [before, pollsBefore, wakeupsBefore, startedAt] = [after, polls, wakeups, endedAt];
  }
  return out;
}

export async function run(ctx: BenchContext): Promise<BenchResult> {
  // 90 ids split 29/30/31 over 3 shards by their hash (45 split 15/15/15); placement by hash evens
  // out as fleets grow (±√n), and a small fleet can be pinned.
  const count = ctx.quick ? 45 : 90;
  const cadenceS = ctx.quick ? 10 : 30;
  const windows = ctx.quick ? 3 : 5;
  const workspaces = Array.from({ length: count }, (_, i) => `fleet-${String(i + 1).padStart(3, '0')}`);
  const sim = await startSimulator({
    seed: 29,
    books: 1,
    campaigns: 1,
    keys: workspaces.map((ws) => ({
      key: fleetKeyOf(ws),
      workspace: ws,
      plan: { name: 'custom', perMinute: 100_000, perMonth: 10_000_000 },
    })),
  });
  ctx.defer(() => sim.close());
  const control = new SimControlClient({ url: sim.url, adminToken: sim.adminToken });
  ctx.defer(() => control.close());
  const masters = [1, 3];
  const clusters: PrivateCluster[] = [];
  for (const m of masters) {
    const cluster = await startPrivateCluster(m);
    clusters.push(cluster);
    ctx.defer(() => cluster.stop());
  }
  ctx.log(`idle CPU of the ${masters.join(' + ')} masters (10 s)`);
  const idle = await idleCpu(clusters, ctx.quick ? 3_000 : 10_000);
  ctx.log(`${count} workspaces, ${SHARDS} shards, on both Clusters side by side`);
  const fleets: Fleet[] = [];
  for (const [i, m] of masters.entries()) {
    const fleet = await startFleet(clusters[i] as PrivateCluster, sim, {
      masters: m,
      shards: SHARDS,
      workspaces,
      cadence: `${cadenceS}s`,
    });
    fleets.push(fleet);
    ctx.defer(() => fleet.close());
  }
  for (const fleet of fleets) {
    const targets = workspaces.flatMap((ws) => fleet.runtime.registry.all(ws));
    await until(
      `a baseline of every target (${fleet.masters} master(s))`,
      async () =>
        (await Promise.all(targets.map((t) => fleet.runtime.store.get(t.ref)))).every((s) => s !== undefined),
      180_000,
    );
  }
  const campaign = sim.catalogue.campaigns[0];
  const perFleet = await measure(ctx, fleets, idle, {
    windows,
    windowMs: cadenceS * 1000,
    alert: async () => {
      await control.event({
        type: 'review',
        campaign_id: campaign?.campaignId ?? '',
        platform: 'audible',
        rating: 5,
        body: 'A review for every workspace',
        reviewer: 'Cluster Bench',
      });
    },
  });
  await until(
    'every workspace alerted on both fleets',
    async () => fleets.every((f) => f.alerted().size >= count),
    120_000,
  ).catch(() => {});
  const runs = fleets.map((f, i) => summarise(f, idle[i] ?? [], perFleet[i] ?? [], count));
  return report(ctx, runs, count);
}

function report(ctx: BenchContext, runs: ClusterRun[], count: number): BenchResult {
  const [one, three] = runs as [ClusterRun, ClusterRun];
  const shares = (r: ClusterRun, of: 'keys' | 'commands') => {
    const sum = r.perMaster.reduce((s, m) => s + m[of], 0);
    return r.perMaster.map((m) => m[of] / sum);
  };
  const within = (xs: number[]) => xs.every((x) => Math.abs(x - 1 / 3) <= 0.08);
  const windowRatios = three.windows.map(
    (w, i) => w.netCpuPerPollUsec / (one.windows[i]?.netCpuPerPollUsec ?? Number.NaN),
  );
  const medianRatio = median(windowRatios);
  const pooledRatio = three.netCpuPerPollUsec / one.netCpuPerPollUsec;
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
    fmt(r.commandsPerPoll, 1),
    fmt(r.wakeupsPerPoll, 1),
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
  const windowRows = one.windows.map((w, i) => {
    const t = three.windows[i] as WindowFigures;
    return [
      `${i + 1}`,
      fmt(w.ms / 1000, 0),
      fmt(w.polls),
      fmt(w.maxLagMs / 1000, 1),
      fmt(w.netCpuPerPollUsec),
      fmt(t.polls),
      fmt(t.maxLagMs / 1000, 1),
      fmt(t.netCpuPerPollUsec),
      `${(windowRatios[i] ?? 0).toFixed(2)}×`,
    ];
  });
  const errors = runs.reduce((s, r) => s + r.redirectsSurfacing, 0);
  const lost = runs.reduce((s, r) => s + (r.alertsExpected - r.alertsReceived), 0);
  const cadence = ctx.quick ? '10 s' : '30 s';
  const details = [
    `${count} workspaces (1 book: book and keywords targets, top 10 keywords; 1 ARC campaign) on the simulator, ` +
      `redis.shards.count ${SHARDS}, fixed cadence ${cadence} per target, the workers of one process per fleet ` +
      '(`startWorkers`). Two loopback Clusters, 1 master and 3 masters (`redis-cli --cluster create`, no replicas), ' +
      'each with its own fleet, run side by side in one process, so the load of the machine falls on both alike. ' +
      `Measured after every target has its baseline, over ${one.windows.length} windows of one cadence each, read on both ` +
      'Clusters at the same moments; one new review in the middle window makes every workspace alert to a local webhook ' +
      "receiver. Redis CPU: INFO cpu of each master (user + system); per poll: all masters' CPU over the polls completed, " +
      "net of each master's idle CPU (housekeeping, the cluster bus; measured for 10 s before the fleets started). " +
      "Wake-ups: context switches of the masters' processes (Linux /proc): a master woken for fewer commands at a time spends more CPU per command on its event loop and system calls. " +
      'Poll lag: how long the slowest poll of a window waited past its due time for a worker; one process runs both ' +
      'fleets, the simulator and the receivers, so when it falls behind (as in the window of the alert, 2 × ' +
      `${count} deliveries at once) a window completes fewer polls and the next ones catch up; the poll rate is then ` +
      "the bench process's, not Redis's.",
    '',
    table(['masters', 'node', 'keys', 'share', 'commands', 'share', 'Redis CPU ms', 'errors replied'], rows),
    '',
    table(
      [
        'masters',
        'polls',
        'commands/poll',
        'master wake-ups/poll',
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
    '',
    'Commands per poll, the ten most called: ' +
      runs.map((r) => `${r.masters} master(s): ${r.topCommandsPerPoll}`).join('; ') +
      '.',
    '',
    table(
      [
        'window',
        's',
        '1 master: polls',
        'longest poll lag s',
        'net µs/poll',
        '3 masters: polls',
        'longest poll lag s',
        'net µs/poll',
        '3 vs 1',
      ],
      windowRows,
    ),
  ].join('\n');
  const ratios = windowRatios.map((r) => r.toFixed(2)).join(', ');
  return {
    title: 'Linear on a local Redis Cluster (1 and 3 masters, side by side)',
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
        metric: `Redis CPU per poll net of idle, 3 masters vs 1 (median of ${windowRatios.length} paired windows)`,
        value: `${fmt(three.netCpuPerPollUsec)} µs`,
        reference: `${fmt(one.netCpuPerPollUsec)} µs (pooled ${pooledRatio.toFixed(2)}×; windows ${ratios})`,
        ratio: `${medianRatio.toFixed(2)}×`,
        goal: 'within 15%',
        met: Math.abs(medianRatio - 1) <= 0.15,
      },
      {
        metric: 'CROSSSLOT/MOVED surfacing, alerts lost',
        value: `${errors}, ${lost}`,
        goal: '0, 0',
        met: errors === 0 && lost === 0,
      },
    ],
    details,
    data: {
      runs: runs.map((r) => ({ ...r, windows: r.windows.map(({ perMaster: _, ...w }) => w) })),
      windowRatios,
      medianRatio,
      pooledRatio,
    },
  };
}
