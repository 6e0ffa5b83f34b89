import type { Job, Queue } from 'bullmq';
import { Cluster, type Redis } from 'ioredis';
import type { RedisConnection } from '../../src/app/redis-connection.ts';
import type { DeliverQueueData } from '../../src/deliver/enqueue.ts';
import { groupHash } from '../../src/deliver/groups.ts';
import { groupKeyOf } from '../../src/deliver/processor.ts';
import type { Alert, AlertKind, Severity } from '../../src/model/alert.ts';
import type { PollJobData } from '../../src/poll/processor.ts';
import type { RequestLogEntry } from '../../src/sim/index.ts';

const KINDS: Record<AlertKind, true> = {
  keyword_rank_drop: true,
  keyword_rank_recovered: true,
  bsr_worsened: true,
  bsr_recovered: true,
  bsr_removed: true,
  bsr_restored: true,
  review_new: true,
  review_removed: true,
  review_restored: true,
  review_count_down: true,
  comp_overtook: true,
  comp_fell_behind: true,
  sentiment_shift: true,
  sentiment_recovered: true,
  royalty_change: true,
  sales_revision: true,
  source_health: true,
  source_recovered: true,
  state_lost: true,
  redis_writable: true,
};

/** Group hash → channel, for every group an alert of these workspaces could land in. */
function groupOwners(channels: readonly string[], workspaces: readonly string[]): Map<string, string> {
  const owners = new Map<string, string>();
  for (const channelId of channels)
    for (const workspace of workspaces)
      for (const kind of Object.keys(KINDS) as AlertKind[])
        for (const severity of ['info', 'critical'] as Severity[])
          for (const hide of [false, true]) {
            const alert = { workspace, kind, severity } as Pick<Alert, 'workspace' | 'kind' | 'severity'>;
            owners.set(groupHash(channelId, groupKeyOf(alert as Alert, hide)), channelId);
          }
  return owners;
}

/** What is left of one group: its due time, buffered and in-flight alerts. */
export interface GroupLeft {
  hash: string;
  /** The channel the group belongs to; `?` for a hash no channel explains. */
  channel: string;
  due: string | null;
  buffered: Alert[];
  /** In-flight alerts per flush job id (a dead letter keeps its own). */
  inflight: Map<string, Alert[]>;
}

/** Every alert a group holds, buffered or in flight. */
export const heldAlerts = (g: GroupLeft): Alert[] => [...g.buffered, ...[...g.inflight.values()].flat()];

/** The nodes to SCAN: every master of a Cluster (a SCAN sees one node's keys), else the one server. */
export function scanNodes(redis: RedisConnection): Redis[] {
  return redis instanceof Cluster ? redis.nodes('master') : [redis];
}

async function scanAll(redis: RedisConnection, match: string | undefined, each: (key: string) => void) {
  for (const node of scanNodes(redis)) {
    let cursor = '0';
    do {
      const [next, found] =
        match === undefined
          ? await node.scan(cursor, 'COUNT', 1000)
          : await node.scan(cursor, 'MATCH', match, 'COUNT', 1000);
      cursor = next;
      for (const key of found) each(key);
    } while (cursor !== '0');
  }
}

/** What is left of the groups under each of `prefixes` (each shard's, on a Cluster). */
export async function groupLeftovers(
  redis: RedisConnection,
  prefixes: readonly string[],
  channels: readonly string[],
  workspaces: readonly string[],
): Promise<GroupLeft[]> {
  const all = await Promise.all(prefixes.map((p) => shardGroupLeftovers(redis, p, channels, workspaces)));
  return all.flat();
}

async function shardGroupLeftovers(
  redis: RedisConnection,
  prefix: string,
  channels: readonly string[],
  workspaces: readonly string[],
): Promise<GroupLeft[]> {
  const owners = groupOwners(channels, workspaces);
  const inflightKeys = new Map<string, string[]>();
  await scanAll(redis, `${prefix}:grp:*`, (key) => {
    const [hash, part] = key.slice(`${prefix}:grp:`.length).split(':');
    // `last` (when the group last sent) is kept on purpose; anything else is work not done.
    if (hash === undefined || part === 'last') return;
    const keys = inflightKeys.get(hash) ?? [];
    if (part === 'inflight') keys.push(key);
    inflightKeys.set(hash, keys);
  });
  const alerts = async (key: string) => (await redis.hvals(key)).map((v) => JSON.parse(v) as Alert);
  const base = (hash: string) => `${prefix}:grp:${hash}`;
  return Promise.all(
    [...inflightKeys].map(async ([hash, keys]) => ({
      hash,
      channel: owners.get(hash) ?? '?',
      due: await redis.get(`${base(hash)}:due`),
      buffered: await alerts(`${base(hash)}:buf`),
      inflight: new Map(
        await Promise.all(
          keys.map(async (k) => [k.slice(`${base(hash)}:inflight:`.length), await alerts(k)] as const),
        ),
      ),
    })),
  );
}

export interface DeliverState {
  pending: Record<string, number>;
  /** Failed flush jobs (the dead letters) per channel. */
  deadLetters: Map<string, number>;
  /** Failed admissions: an alert that never reached its group. */
  failedAdmits: number;
}

/** The delivery queues' state, every shard's added up. */
export async function deliverState(queues: readonly Queue<DeliverQueueData>[]): Promise<DeliverState> {
  const pending: Record<string, number> = {};
  for (const queue of queues) {
    const counts = await queue.getJobCounts(
      'waiting',
      'active',
      'delayed',
      'prioritized',
      'waiting-children',
    );
    for (const [state, n] of Object.entries(counts)) pending[state] = (pending[state] ?? 0) + n;
  }
  const deadLetters = new Map<string, number>();
  let failedAdmits = 0;
  for (const job of (await Promise.all(queues.map((q) => q.getFailed(0, -1)))).flat()) {
    if (job.name !== 'flush') {
      failedAdmits += 1;
      continue;
    }
    const channelId = (job.data as { channelId: string }).channelId;
    deadLetters.set(channelId, (deadLetters.get(channelId) ?? 0) + 1);
  }
  return { pending, deadLetters, failedAdmits };
}

export const pendingTotal = (pending: Record<string, number>): number =>
  Object.values(pending).reduce((sum, n) => sum + n, 0);

/**
 * Poll jobs that are neither a scheduler's next job nor one being worked on right now: a second
 * delayed job of a scheduler (a parked poll), or a waiting/active job older than `staleMs`.
 */
export async function pollLeftovers(
  queue: Queue<PollJobData>,
  nowMs: number,
  staleMs = 30_000,
): Promise<string[]> {
  const leftovers: string[] = [];
  const delayedBy = new Map<string, Job<PollJobData>[]>();
  for (const job of await queue.getDelayed(0, -1)) {
    const key = job.repeatJobKey ?? job.id ?? '?';
    delayedBy.set(key, [...(delayedBy.get(key) ?? []), job]);
  }
  for (const [key, jobs] of delayedBy) {
    if (jobs.length < 2) continue;
    const shown = jobs.map(
      (j) => `${j.id} (made ${new Date(j.timestamp).toISOString()}, delay ${j.delay} ms)`,
    );
    leftovers.push(`${jobs.length - 1} extra delayed of ${key}: ${shown.join(', ')}`);
  }
  for (const job of await queue.getJobs(['waiting', 'prioritized'])) {
    if (nowMs - job.timestamp > staleMs)
      leftovers.push(`waiting since ${new Date(job.timestamp).toISOString()} (${job.id})`);
  }
  for (const job of await queue.getActive()) {
    if (nowMs - (job.processedOn ?? job.timestamp) > 2 * staleMs)
      leftovers.push(`active for long (${job.id})`);
  }
  return leftovers;
}

/** The most requests inside any `windowMs` of real time. */
export function busiestWindow(entries: readonly RequestLogEntry[], windowMs = 60_000): number {
  const times = entries.map((e) => Date.parse(e.real_time)).sort((a, b) => a - b);
  let most = 0;
  let start = 0;
  for (let end = 0; end < times.length; end += 1) {
    while ((times[end] ?? 0) - (times[start] ?? 0) >= windowMs) start += 1;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

export function faultTally(entries: readonly RequestLogEntry[]): Record<string, number> {
  const tally: Record<string, number> = {
    '5xx JSON error': 0,
    'HTML error page': 0,
    'timeout (answer slower than the 15 s header timeout)': 0,
    'malformed JSON': 0,
    'connection reset': 0,
    '429 storm (injected)': 0,
  };
  const name: Record<string, string> = {
    html: 'HTML error page',
    slow: 'timeout (answer slower than the 15 s header timeout)',
    malformed_json: 'malformed JSON',
    reset_connection: 'connection reset',
  };
  for (const e of entries) {
    if (e.fault === null) continue;
    const kind =
      e.fault === 'status' ? (e.status === 429 ? '429 storm (injected)' : '5xx JSON error') : name[e.fault];
    if (kind !== undefined) tally[kind] = (tally[kind] ?? 0) + 1;
  }
  return tally;
}

/** Keys whose value contains one of `secrets` (every type BullMQ and shelfwatch use). */
export async function redisSecretHits(redis: RedisConnection, secrets: readonly string[]): Promise<string[]> {
  const hits: string[] = [];
  const keys: string[] = [];
  await scanAll(redis, undefined, (key) => keys.push(key));
  for (const key of keys) {
    const type = await redis.type(key);
    let values: string[] = [];
    if (type === 'string') values = [(await redis.get(key)) ?? ''];
    else if (type === 'hash') values = Object.entries(await redis.hgetall(key)).flat();
    else if (type === 'list') values = await redis.lrange(key, 0, -1);
    else if (type === 'set') values = await redis.smembers(key);
    else if (type === 'zset') values = await redis.zrange(key, 0, -1);
    else if (type === 'stream') values = (await redis.xrange(key, '-', '+')).flatMap(([, fields]) => fields);
    const text = [key, ...values].join('\n');
    if (secrets.some((s) => text.includes(s))) hits.push(key);
  }
  return hits;
}
