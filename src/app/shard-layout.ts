/**
 * The deployment's shard layout, kept in Redis (jobs/keys.ts shardLayoutKey, on the home prefix):
 * how many shards, and under which prefix each workspace's keys are. At start it is compared with
 * the config; a workspace whose keys are under another prefix than its shard's is refused with
 * the command that moves it (`shelfwatch shards migrate`), so a changed shard count never starts
 * polling from empty state beside the real one.
 *
 * No layout stored means the layout of every deployment before shards: one shard, every key under
 * the configured prefix. With one shard and nothing to move nothing is written, so such a
 * deployment keeps exactly its keys.
 */
import { Queue } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import { arcKeyPatterns } from '../arc/keys.ts';
import { budgetKeyPatterns, budgetKeys, utcBillingMonth } from '../budget/keys.ts';
import { digestKeyPatterns } from '../digest/keys.ts';
import { historyKeyPatterns } from '../history/keys.ts';
import { shardLayoutKey } from '../jobs/keys.ts';
import { POLL_QUEUE } from '../jobs/queues.ts';
import { SnapshotKeys } from '../snapshot/keys.ts';
import type { Runtime } from './runtime.ts';

export interface StoredLayout {
  count: number;
  /** Workspace id → the prefix its keys are under. */
  placement: Record<string, string>;
}

export interface ShardMove {
  workspace: string;
  from: string;
  to: string;
}

export const MIGRATE_COMMAND = 'shelfwatch shards migrate';

/** The config's shards are not the layout in Redis: the decision is to stop and migrate first. */
export class ShardLayoutError extends Error {
  override readonly name = 'ShardLayoutError';
  constructor(
    readonly stored: StoredLayout | null,
    readonly count: number,
    readonly moves: readonly ShardMove[],
  ) {
    const shown = moves.slice(0, 5).map((m) => `${m.workspace} (${m.from} → ${m.to})`);
    const more = moves.length > shown.length ? ` and ${moves.length - shown.length} more` : '';
    super(
      `the shard layout in Redis (${stored?.count ?? 1} shard${(stored?.count ?? 1) === 1 ? '' : 's'}) ` +
        `is not the config's (${count}): ${moves.length} workspace${moves.length === 1 ? '' : 's'} ` +
        `would start without ${moves.length === 1 ? 'its' : 'their'} state: ${shown.join(', ')}${more}. ` +
        `Stop every worker, then run \`${MIGRATE_COMMAND}\` with this config`,
    );
  }
}

export async function readLayout(redis: Redis | Cluster, home: string): Promise<StoredLayout | null> {
  const raw = await redis.get(shardLayoutKey(home));
  return raw === null ? null : (JSON.parse(raw) as StoredLayout);
}

/** True when the workspace has budget use or snapshots under `prefix` (one EXISTS, one slot). */
async function hasState(redis: Redis | Cluster, prefix: string, workspace: string, nowMs: number) {
  const budget = budgetKeys(prefix, workspace);
  const found = await redis.exists(
    budget.window,
    budget.month(utcBillingMonth(nowMs).label),
    new SnapshotKeys(prefix).targets(workspace),
  );
  return found > 0;
}

/** The workspaces whose keys are under another prefix than the config's shard for them. */
export async function pendingMoves(runtime: Runtime, stored: StoredLayout | null): Promise<ShardMove[]> {
  const moves: ShardMove[] = [];
  for (const ws of runtime.config.workspaces) {
    const from = stored === null ? runtime.prefix : stored.placement[ws.id];
    const to = runtime.shardMap.of(ws.id);
    if (from === undefined || from === to) continue;
    if (await hasState(runtime.redis, from, ws.id, runtime.clock.now()))
      moves.push({ workspace: ws.id, from, to });
  }
  return moves;
}

function layoutOf(runtime: Runtime, stored: StoredLayout | null): StoredLayout {
  const placement = { ...(stored?.placement ?? {}) };
  for (const ws of runtime.config.workspaces) placement[ws.id] = runtime.shardMap.of(ws.id);
  return { count: runtime.shardMap.count, placement };
}

/** At start: refuses a layout change that was not migrated; records the layout otherwise. */
export async function ensureShardLayout(runtime: Runtime): Promise<void> {
  const stored = await readLayout(runtime.redis, runtime.prefix);
  const moves = await pendingMoves(runtime, stored);
  if (moves.length > 0) throw new ShardLayoutError(stored, runtime.shardMap.count, moves);
  if (stored === null && runtime.shardMap.count === 1) return;
  await runtime.redis.set(shardLayoutKey(runtime.prefix), JSON.stringify(layoutOf(runtime, stored)));
}

/** Every key matching `pattern`, on every master of a Cluster. */
async function scanAll(redis: Redis | Cluster, pattern: string): Promise<string[]> {
  const nodes =
    'nodes' in redis && typeof redis.nodes === 'function' ? redis.nodes('master') : [redis as Redis];
  const keys: string[] = [];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, found] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1_000);
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
  }
  return keys;
}

export interface MigrationReport {
  moves: ShardMove[];
  keysMoved: number;
  schedulersRemoved: number;
}

/**
 * Moves each workspace whose keys are under another prefix than its shard's: every key of it
 * (budget, snapshots and their rule state, history, digest and ARC state) is copied with DUMP and
 * RESTORE (keeping its TTL) and deleted from the old prefix, one key at a time (no command spans
 * two slots); its poll schedulers leave the old shard's queue (the next start schedules them on
 * the new one). Run with every worker stopped. `dryRun` only says what would move.
 */
export async function migrateShards(runtime: Runtime, dryRun = false): Promise<MigrationReport> {
  const { redis } = runtime;
  const stored = await readLayout(redis, runtime.prefix);
  const moves = await pendingMoves(runtime, stored);
  const report: MigrationReport = { moves, keysMoved: 0, schedulersRemoved: 0 };
  if (dryRun) return report;
  for (const move of moves) {
    const patterns = [
      ...budgetKeyPatterns(move.from, move.workspace),
      ...SnapshotKeys.patterns(move.from, move.workspace),
      ...historyKeyPatterns(move.from, move.workspace),
      ...digestKeyPatterns(move.from, move.workspace),
      ...arcKeyPatterns(move.from, move.workspace),
    ];
    for (const pattern of patterns) {
      for (const key of await scanAll(redis, pattern)) {
        const [dump, ttl] = await Promise.all([redis.dumpBuffer(key), redis.pttl(key)]);
        if (dump === null) continue;
        const target = `${move.to}${key.slice(move.from.length)}`;
        await redis.restore(target, Math.max(ttl, 0), dump, 'REPLACE');
        await redis.del(key);
        report.keysMoved += 1;
      }
    }
    const oldQueue = new Queue(POLL_QUEUE, { connection: redis, prefix: move.from });
    try {
      for (const scheduler of await oldQueue.getJobSchedulers(0, -1)) {
        if (
          scheduler.key.startsWith(`${move.workspace}.`) &&
          (await oldQueue.removeJobScheduler(scheduler.key))
        )
          report.schedulersRemoved += 1;
      }
    } finally {
      await oldQueue.close();
    }
  }
  await redis.set(shardLayoutKey(runtime.prefix), JSON.stringify(layoutOf(runtime, stored)));
  return report;
}
