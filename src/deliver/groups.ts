import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import type { Alert } from '../model/alert.ts';
import { DAY_MS } from '../util/time-units.ts';
import { type GroupKeys, groupBufferPattern, groupHashOfBuffer, groupKeys, inflightKey } from './keys.ts';

export function groupHash(channelId: string, groupKey: string): string {
  return createHash('sha256').update(`${channelId}\u0000${groupKey}`).digest('hex').slice(0, 24);
}

export { type GroupKeys, groupKeys, inflightKey };

// KEYS: buffer, due, last, meta. ARGV: fingerprint, alert JSON, now, groupWait, groupInterval,
// notBefore, ttl, meta JSON.
// Adds the alert (once per fingerprint) and returns the group's flush time, choosing one if the
// group has none: group_wait after the first alert, but not before group_interval after the last
// message, nor before `notBefore` (the end of quiet hours).
const ADMIT = `
redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('SET', KEYS[4], ARGV[8], 'PX', ARGV[7])
local due = redis.call('GET', KEYS[2])
if due then return tonumber(due) end
local now = tonumber(ARGV[3])
local at = now + tonumber(ARGV[4])
local last = redis.call('GET', KEYS[3])
if last then at = math.max(at, tonumber(last) + tonumber(ARGV[5])) end
at = math.max(at, tonumber(ARGV[6]))
redis.call('SET', KEYS[2], at, 'PX', ARGV[7])
return at
`;

// KEYS: buffer, due, inflight (of this flush job), last, meta. ARGV: now, ttl. Moves the buffer to this
// job's in-flight set once, and hands back what is in flight (the same set again when this job's
// failed send is retried). The due key goes with it, so the next alert opens a new window.
const TAKE = `
if redis.call('EXISTS', KEYS[3]) == 0 then
  if redis.call('EXISTS', KEYS[1]) == 0 then
    redis.call('DEL', KEYS[2], KEYS[5])
    return {}
  end
  redis.call('RENAME', KEYS[1], KEYS[3])
  redis.call('PEXPIRE', KEYS[3], ARGV[2])
  redis.call('DEL', KEYS[2], KEYS[5])
  redis.call('SET', KEYS[4], ARGV[1], 'PX', ARGV[2])
end
return redis.call('HVALS', KEYS[3])
`;

// KEYS: buffer, due, inflight (of this flush job), meta. ARGV: the job's due time, ttl.
// For a flush that fails for good: its alerts become its dead letter. One that failed before it took
// the buffer (channel disabled or gone, too many deferrals) left the buffer waiting under its due
// time, and every later alert of the group got this job's id, which BullMQ ignores while the failed
// job is kept: stuck until a retry, and invisible to `dlq list`. The buffer moves to the job's
// in-flight set only while the due time is still this job's (else it is a later window's).
// Freeing the due key opens a new window; no buffer is left behind for the janitor to re-flush.
const KEEP = `
if redis.call('EXISTS', KEYS[3]) == 1 then return redis.call('HLEN', KEYS[3]) end
local due = redis.call('GET', KEYS[2])
if not due or tonumber(due) ~= tonumber(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[2], KEYS[4])
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('RENAME', KEYS[1], KEYS[3])
redis.call('PEXPIRE', KEYS[3], ARGV[2])
return redis.call('HLEN', KEYS[3])
`;

// KEYS: buffer, due, meta. ARGV: now, ttl. Claims an orphan (alerts buffered, no flush due) for a
// flush at `now`, checked and claimed at once: the janitor lists groups first, and a flush that took
// the buffer in between (deleting due and meta) must not be left a due time with no job behind it.
const CLAIM_ORPHAN = `
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('EXISTS', KEYS[2]) == 1 then return false end
local meta = redis.call('GET', KEYS[3])
if not meta then return false end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
return meta
`;

const RETENTION_MS = 30 * DAY_MS;

export class GroupBuffer {
  constructor(
    private readonly redis: Redis | Cluster,
    private readonly prefix: string,
  ) {}

  keys(hash: string): GroupKeys {
    return groupKeys(this.prefix, hash);
  }

  async admit(
    hash: string,
    alert: Alert,
    timing: { nowMs: number; groupWaitMs: number; groupIntervalMs: number; notBeforeMs: number },
    meta: object,
  ): Promise<number> {
    const k = this.keys(hash);
    const due = await this.redis.eval(
      ADMIT,
      4,
      k.buffer,
      k.due,
      k.last,
      k.meta,
      alert.fingerprint,
      JSON.stringify(alert),
      timing.nowMs,
      timing.groupWaitMs,
      timing.groupIntervalMs,
      timing.notBeforeMs,
      RETENTION_MS,
      JSON.stringify(meta),
    );
    return Number(due);
  }

  /** The alerts flush job `jobId` sends (possibly none); kept in flight until `confirm`. */
  async take(hash: string, jobId: string, nowMs: number): Promise<Alert[]> {
    const k = this.keys(hash);
    const values = (await this.redis.eval(
      TAKE,
      5,
      k.buffer,
      k.due,
      inflightKey(this.prefix, hash, jobId),
      k.last,
      k.meta,
      nowMs,
      RETENTION_MS,
    )) as string[];
    return values.map((value) => JSON.parse(value) as Alert).sort((a, b) => a.observedAt - b.observedAt);
  }

  /** The in-flight alerts of one flush job without taking anything: for dead-letter listings. */
  async inflight(hash: string, jobId: string): Promise<Alert[]> {
    const values = await this.redis.hvals(inflightKey(this.prefix, hash, jobId));
    return values.map((value) => JSON.parse(value) as Alert);
  }

  /**
   * Keeps the alerts of flush job `jobId` (due at `dueAt`) for its dead letter: its in-flight set,
   * or the group's buffer when the job failed before taking it. Returns how many it holds.
   */
  async keepForDeadLetter(hash: string, jobId: string, dueAt: number): Promise<number> {
    const k = this.keys(hash);
    const inflight = inflightKey(this.prefix, hash, jobId);
    return Number(await this.redis.eval(KEEP, 4, k.buffer, k.due, inflight, k.meta, dueAt, RETENTION_MS));
  }

  /**
   * Claims an orphaned group (alerts buffered, no flush due) for a flush at `nowMs`: the group's
   * flush job data, or null when another process claimed it or it is not orphaned any more.
   */
  async claimOrphan(hash: string, nowMs: number): Promise<{ meta: unknown; dueAt: number } | null> {
    const k = this.keys(hash);
    const meta = (await this.redis.eval(CLAIM_ORPHAN, 3, k.buffer, k.due, k.meta, nowMs, RETENTION_MS)) as
      | string
      | null;
    return meta === null ? null : { meta: JSON.parse(meta) as unknown, dueAt: nowMs };
  }

  /** Forgets a flush job's alerts: after the channel confirmed them, or when its dead letter is purged. */
  async confirm(hash: string, jobId: string): Promise<void> {
    await this.redis.del(inflightKey(this.prefix, hash, jobId));
  }
}

/**
 * Groups whose buffer holds alerts but that have no flush scheduled (a process died between
 * buffering and scheduling, and no later alert of the group came to schedule one). The janitor
 * gives each a due time now, so nothing waits forever.
 */
export async function orphanedGroups(redis: Redis | Cluster, prefix: string): Promise<string[]> {
  const nodes =
    'nodes' in redis && typeof redis.nodes === 'function' ? redis.nodes('master') : [redis as Redis];
  const orphans: string[] = [];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', groupBufferPattern(prefix), 'COUNT', 500);
      cursor = next;
      for (const key of keys) {
        const hash = groupHashOfBuffer(prefix, key);
        if ((await redis.exists(groupKeys(prefix, hash).due)) === 0) orphans.push(hash);
      }
    } while (cursor !== '0');
  }
  return orphans;
}
