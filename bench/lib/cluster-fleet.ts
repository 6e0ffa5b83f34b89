/**
 * One fleet of the cluster benchmark: a private loopback Cluster of `masters` masters, a Runtime
 * with `shards` shards on it, its workers (`startWorkers`) and a webhook receiver counting the
 * workspaces alerted. The benchmark runs two at once, side by side, against one simulator.
 */
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { Runtime } from '../../src/app/runtime.ts';
import { startWorkers } from '../../src/app/start.ts';
import { scheduledTimeOf } from '../../src/jobs/poll-job.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { Shutdown } from '../../src/ops/shutdown.ts';
import type { RunningSimulator } from '../../src/sim/index.ts';
import type { PrivateCluster } from '../../src/tools/private-cluster.ts';
import { type HttpReceiver, startHttpReceiver } from '../../src/tools/receivers/http.ts';
import { configOrThrow } from './month.ts';
import { type RedisStats, readStats } from './redis-stats.ts';

export const REDIRECTS = /CROSSSLOT|MOVED|ASK/;
export const fleetKeyOf = (ws: string) => `sk_bench_cluster_${ws}_0123456789`;

/** Voluntary + involuntary context switches of a process (Linux /proc), 0 where unknown. */
export function contextSwitches(pid: number | undefined): number {
  if (pid === undefined || pid === 0) return 0;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return [...status.matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)/gm)].reduce(
      (sum, m) => sum + Number(m[1]),
      0,
    );
  } catch {
    return 0;
  }
}

export interface Fleet {
  masters: number;
  cluster: PrivateCluster;
  runtime: Runtime;
  receiver: HttpReceiver;
  /** Poll jobs completed so far. */
  polls(): number;
  /**
   * The longest start lag of a poll completed since the last call (ms from when it was due to when
   * a worker took it): a fleet whose process cannot keep up shows it here, not in Redis.
   */
  takeMaxLagMs(): number;
  jobsFailed(): number;
  redirectsSurfacing(): number;
  /** Workspaces with a review_new alert at the receiver. */
  alerted(): Set<string>;
  /** INFO of every master, in node order. */
  read(): Promise<RedisStats[]>;
  /** Context switches of every master's process so far (how often it was woken), in node order. */
  wakeups(): number[];
  close(): Promise<void>;
}

/** Starts the workers of `workspaces` on `cluster` (taken over: closed with the fleet). */
export async function startFleet(
  cluster: PrivateCluster,
  sim: RunningSimulator,
  o: { masters: number; shards: number; workspaces: readonly string[]; cadence: string },
): Promise<Fleet> {
  const shutdown = new Shutdown(silentLogger());
  shutdown.add('cluster', () => cluster.stop());
  const receiver = await startHttpReceiver();
  shutdown.add('receiver', () => receiver.close());
  const admins = cluster.nodes.map((n) => new Redis(n.url));
  shutdown.add('admins', () => {
    for (const admin of admins) admin.disconnect();
  });
  try {
    const campaign = sim.catalogue.campaigns[0];
    if (campaign === undefined) throw new Error('the simulator has no campaign');
    const config = configOrThrow({
      redis: { url: cluster.url, prefix: '{shelfwatch}', cluster: true, shards: { count: o.shards } },
      workspaces: o.workspaces.map((id) => ({
        id,
        baseUrl: sim.url,
        apiKey: fleetKeyOf(id),
        plan: 'custom:100000:10000000',
        sales: false,
        keywordSource: 'snapshot',
        books: sim.catalogue.books.map((book) => ({ asin: book.asin, keywords: { top: 10 } })),
        campaigns: [{ id: campaign.campaignId }],
        cadence: { book: o.cadence, keywords: o.cadence, reviews: o.cadence },
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
    const runtime = new Runtime({
      config,
      logger: silentLogger(),
      version: 'bench',
      clusterPatience: 'worker',
    });
    await runtime.connect(10_000);
    shutdown.add('runtime', () => runtime.close());
    let polls = 0;
    let maxLagMs = 0;
    let jobsFailed = 0;
    let redirectsSurfacing = 0;
    await startWorkers(runtime, shutdown, {
      onWorkers: ({ poll, deliver }) => {
        poll.on('completed', (job) => {
          polls += 1;
          if (job.processedOn !== undefined)
            maxLagMs = Math.max(maxLagMs, job.processedOn - scheduledTimeOf(job));
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
    return {
      masters: o.masters,
      cluster,
      runtime,
      receiver,
      polls: () => polls,
      takeMaxLagMs: () => {
        const lag = maxLagMs;
        maxLagMs = 0;
        return lag;
      },
      jobsFailed: () => jobsFailed,
      redirectsSurfacing: () => redirectsSurfacing,
      alerted: () =>
        new Set(
          receiver.requests.flatMap(
            (r) =>
              (JSON.parse(r.raw) as { alerts?: { kind: string; workspace: string }[] }).alerts
                ?.filter((a) => a.kind === 'review_new')
                .map((a) => a.workspace) ?? [],
          ),
        ),
      read: () => Promise.all(admins.map((admin) => readStats(admin))),
      wakeups: () => cluster.nodes.map((node) => contextSwitches(node.pid)),
      close: () => shutdown.run(10_000),
    };
  } catch (error) {
    await shutdown.run(10_000);
    throw error;
  }
}
