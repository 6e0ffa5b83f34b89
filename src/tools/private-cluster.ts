import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { startPrivateRedis } from './private-redis.ts';

/** A node of a private Cluster: what the starter of its redis-server gives back. */
export interface ClusterNode {
  readonly url: string;
  readonly port: number;
  /** The redis-server's process id, where the starter knows it. */
  readonly pid?: number;
  stop(): Promise<void>;
}

export interface PrivateCluster<N extends ClusterNode = ClusterNode> {
  nodes: N[];
  /** A seed node's URL: the Cluster client discovers the others. */
  url: string;
  /** Stops every node, whatever the others did. */
  stop(): Promise<void>;
}

/**
 * Every node gets these. `cluster-require-full-coverage no`: a master that is down stops only
 * its own slots (its shards wait, the others go on), as docs/scaling.md tells deployments to set.
 */
export const CLUSTER_NODE_ARGS: readonly string[] = [
  '--cluster-enabled',
  'yes',
  '--cluster-require-full-coverage',
  'no',
  '--cluster-announce-ip',
  '127.0.0.1',
];

export interface PrivateClusterOptions<N extends ClusterNode> {
  /**
   * Starts one node given CLUSTER_NODE_ARGS; by default a throw-away `startPrivateRedis`. The chaos
   * suite passes nodes that keep an append-only file and `nodes.conf`, so one can restart as itself.
   */
  startNode?: (extraArgs: readonly string[]) => Promise<N>;
  timeoutMs?: number;
}

async function clusterOk(node: ClusterNode): Promise<boolean> {
  const admin = new Redis(node.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  admin.on('error', () => {});
  try {
    await admin.connect();
    return String(await admin.call('CLUSTER', 'INFO')).includes('cluster_state:ok');
  } catch {
    return false;
  } finally {
    admin.disconnect();
  }
}

/**
 * A Redis Cluster of `masters` private redis-servers on loopback, no replicas: three or more are
 * joined by `redis-cli --cluster create` (equal slot ranges); fewer (which `--cluster create`
 * refuses) get the slots by `CLUSTER ADDSLOTSRANGE`, split evenly. The one helper the cluster
 * tests, the benchmarks and the chaos suite start a Cluster with.
 */
export async function startPrivateCluster<N extends ClusterNode = ClusterNode>(
  masters = 3,
  options: PrivateClusterOptions<N> = {},
): Promise<PrivateCluster<N>> {
  const startNode =
    options.startNode ?? ((extraArgs) => startPrivateRedis({ extraArgs }) as unknown as Promise<N>);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const nodes: N[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((node) => node.stop().catch(() => {})));
  };
  try {
    for (let i = 0; i < masters; i += 1) nodes.push(await startNode(CLUSTER_NODE_ARGS));
    const run = promisify(execFile);
    if (masters >= 3) {
      const addresses = nodes.map((n) => `127.0.0.1:${n.port}`);
      await run(
        'redis-cli',
        ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'],
        {
          timeout: timeoutMs,
        },
      );
    } else {
      const per = Math.ceil(16_384 / masters);
      for (const [i, node] of nodes.entries()) {
        const last = Math.min(16_384, (i + 1) * per) - 1;
        const args = ['-h', '127.0.0.1', '-p', String(node.port), 'CLUSTER', 'ADDSLOTSRANGE'];
        await run('redis-cli', [...args, String(i * per), String(last)]);
        if (i > 0)
          await run('redis-cli', [
            '-p',
            String(nodes[0]?.port),
            'CLUSTER',
            'MEET',
            '127.0.0.1',
            String(node.port),
          ]);
      }
    }
    const deadline = Date.now() + timeoutMs;
    for (const node of nodes) {
      while (!(await clusterOk(node))) {
        if (Date.now() > deadline)
          throw new Error(`cluster_state not ok on :${node.port} within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { nodes, url: nodes[0]?.url ?? '', stop };
}
