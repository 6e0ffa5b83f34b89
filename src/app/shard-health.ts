import type { RedisConnection } from './redis-connection.ts';
import type { ShardParts } from './shard-parts.ts';

/** What the probe needs of a runtime: its connection and its shards. */
export interface ShardSources {
  redis: RedisConnection;
  shards: readonly Pick<ShardParts, 'index' | 'prefix' | 'workspaces'>[];
}

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
export async function shardReachability(runtime: ShardSources, timeoutMs = 2_000): Promise<ShardReach[]> {
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

/**
 * What a shard that does not answer holds up, in one line: its workspaces' polls and deliveries;
 * on the home shard (0) also every delivery, which reads the silences and channel state kept there.
 */
export function downShardLine(shard: ShardReach): string {
  const names = shard.workspaces.length === 0 ? 'no workspace' : shard.workspaces.join(', ');
  const home = shard.index === 0 ? '; it is the home shard: every delivery waits for it' : '';
  return `shard ${shard.index} (${shard.prefix}) does not answer: its workspaces wait (${names})${home}`;
}

/** The readiness check of a deployment with shards: fails naming each shard that does not answer. */
export async function shardsReadiness(runtime: ShardSources, timeoutMs: number): Promise<void> {
  if (runtime.shards.length < 2) return;
  const down = (await shardReachability(runtime, timeoutMs)).filter((s) => !s.reachable);
  // Short: the readiness body cuts each reason at 200 characters.
  const named = (s: ShardReach) => {
    const shown = s.workspaces.slice(0, 3).join(', ') + (s.workspaces.length > 3 ? ', …' : '');
    return `shard ${s.index} (${s.prefix}) does not answer, ${s.workspaces.length} workspace(s) wait: ${shown || '-'}`;
  };
  if (down.length > 0) throw new Error(down.map(named).join('; '));
}
