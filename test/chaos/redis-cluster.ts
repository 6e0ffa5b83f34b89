import { Redis } from 'ioredis';
import { type PrivateCluster, startPrivateCluster } from '../../src/tools/private-cluster.ts';
import { type ChaosRedis, type RedisOutage, RestartableRedis } from './redis-aof.ts';

/**
 * The chaos run's Redis as a 3-master Cluster (`CHAOS_SHARDS=3`), started by the one Cluster
 * helper with nodes that keep an append-only file (fsync always) and their `nodes.conf` in a fixed
 * directory on a fixed port, so a restarted master comes back as itself, with its slots and every
 * write it acknowledged. A restart is of one master: the one holding `restartKey`'s slot (the
 * chaos workspace's shard, whose budget, snapshots and delivery groups are on it). It is back
 * long before `cluster-node-timeout` (15 s), so the others never mark it failed.
 */
export class ChaosCluster implements ChaosRedis {
  readonly outages: RedisOutage[] = [];

  private constructor(
    private readonly cluster: PrivateCluster<RestartableRedis>,
    private readonly restarted: RestartableRedis,
  ) {}

  static async create(masters: number, restartKey: string): Promise<ChaosCluster> {
    const cluster = await startPrivateCluster(masters, {
      startNode: (extraArgs) => RestartableRedis.create(extraArgs),
    });
    try {
      const admin = new Redis(cluster.url);
      try {
        const slot = Number(await admin.call('CLUSTER', 'KEYSLOT', restartKey));
        const ranges = (await admin.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
        const port = ranges.find(([from, to]) => from <= slot && slot <= to)?.[2][1];
        const node = cluster.nodes.find((n) => n.port === port);
        if (node === undefined) throw new Error(`no master serves slot ${slot}`);
        return new ChaosCluster(cluster, node);
      } finally {
        admin.disconnect();
      }
    } catch (error) {
      await cluster.stop();
      throw error;
    }
  }

  /** A node that never restarts: workers started during the outage find the Cluster from it. */
  get url(): string {
    return (this.cluster.nodes.find((n) => n !== this.restarted) ?? this.restarted).url;
  }

  /** Which node restarts, for the log. */
  get restartedPort(): number {
    return this.restarted.port;
  }

  async restart(signal: 'SIGTERM' | 'SIGKILL', downMs: number): Promise<RedisOutage> {
    const outage = await this.restarted.restart(signal, downMs);
    this.outages.push(outage);
    return outage;
  }

  killNow(): void {
    for (const node of this.cluster.nodes) node.killNow();
  }

  dispose(): Promise<void> {
    return this.cluster.stop();
  }
}
