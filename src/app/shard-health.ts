import type { Runtime } from './runtime.ts';

export interface ShardReach {
  index: number;
  prefix: string;
  workspaces: string[];
  reachable: boolean;
  error: string | null;
}

/**
 * Whether each shard's Redis node answers: one EXISTS on a key of the shard's slot, given
 * `timeoutMs`. On a Redis Cluster whose node is down (with cluster-require-full-coverage no) only
 * that node's shards wait; this names them and their workspaces.
 */
export async function shardReachability(runtime: Runtime, timeoutMs = 2_000): Promise<ShardReach[]> {
  return Promise.all(
    runtime.shards.map(async (shard) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        await Promise.race([runtime.redis.exists(`${shard.prefix}:shard-probe`), timeout]);
        return {
          index: shard.index,
          prefix: shard.prefix,
          workspaces: shard.workspaces,
          reachable: true,
          error: null,
        };
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return {
          index: shard.index,
          prefix: shard.prefix,
          workspaces: shard.workspaces,
          reachable: false,
          error: message,
        };
      } finally {
        clearTimeout(timer);
      }
    }),
  );
}
