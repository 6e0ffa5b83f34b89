import { Redis } from 'ioredis';
import { type PrivateRedis, startPrivateRedis } from '../../src/tools/private-redis.ts';

export interface PrivateCluster {
  nodes: PrivateRedis[];
  /** A seed node's URL: the Cluster client discovers the others. */
  url: string;
  stop(): Promise<void>;
}

const SLOTS = 16_384;

/**
 * A Redis Cluster of `masters` private redis-servers on loopback, built by hand (ADDSLOTSRANGE and
 * MEET), so no redis-cli or fixed ports are needed.
 */
export async function startPrivateCluster(masters = 3, timeoutMs = 20_000): Promise<PrivateCluster> {
  const nodes: PrivateRedis[] = [];
  try {
    for (let i = 0; i < masters; i += 1) {
      nodes.push(
        await startPrivateRedis({
          extraArgs: ['--cluster-enabled', 'yes', '--cluster-announce-ip', '127.0.0.1'],
        }),
      );
    }
    const admins = nodes.map((node) => new Redis(node.url, { lazyConnect: false }));
    try {
      const per = Math.ceil(SLOTS / masters);
      for (const [i, admin] of admins.entries()) {
        await admin.call(
          'CLUSTER',
          'ADDSLOTSRANGE',
          String(i * per),
          String(Math.min(SLOTS, (i + 1) * per) - 1),
        );
      }
      for (const node of nodes.slice(1))
        await admins[0]?.call('CLUSTER', 'MEET', '127.0.0.1', String(node.port));
      const deadline = Date.now() + timeoutMs;
      for (const admin of admins) {
        while (!String(await admin.call('CLUSTER', 'INFO')).includes('cluster_state:ok')) {
          if (Date.now() > deadline) throw new Error(`cluster not ok within ${timeoutMs} ms`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    } finally {
      for (const admin of admins) admin.disconnect();
    }
  } catch (error) {
    await Promise.all(nodes.map((node) => node.stop()));
    throw error;
  }
  return {
    nodes,
    url: nodes[0]?.url ?? '',
    stop: async () => {
      await Promise.all(nodes.map((node) => node.stop()));
    },
  };
}
