/**
 * Every Redis key of delivery, under the run's prefix (e.g. `{shelfwatch}`):
 *
 *   <prefix>:sent:<fingerprint>:<channel>         the notification log (dedup.ts)
 *   <prefix>:unconfirmed:<fingerprint>:<channel>  sends without an answer (dedup.ts)
 *   <prefix>:grp:<hash>:buf|due|last|meta         a group buffer (groups.ts)
 *   <prefix>:grp:<hash>:inflight:<flush job id>   the alerts one flush job took (groups.ts)
 *   <prefix>:disabled:<channel>                   a channel broken for good (channel-health.ts)
 *   <prefix>:pace:<channel>                       a channel's send pacing (pacing.ts)
 *
 * Every key derives from the prefix, so a hash-tagged prefix keeps each script's keys in one
 * Redis Cluster slot. Stored data is read back by these exact strings: do not change them.
 */

export function sentKey(prefix: string, fingerprint: string, channelId: string): string {
  return `${prefix}:sent:${fingerprint}:${channelId}`;
}

export function unconfirmedKey(prefix: string, fingerprint: string, channelId: string): string {
  return `${prefix}:unconfirmed:${fingerprint}:${channelId}`;
}

/**
 * The group buffer of one channel and group: alerts wait here until their flush job sends them as
 * one message.
 */
export interface GroupKeys {
  buffer: string;
  due: string;
  last: string;
  /** The group's flush job data, so a janitor can schedule an orphaned group. */
  meta: string;
}

export function groupKeys(prefix: string, hash: string): GroupKeys {
  const base = `${prefix}:grp:${hash}`;
  return { buffer: `${base}:buf`, due: `${base}:due`, last: `${base}:last`, meta: `${base}:meta` };
}

/**
 * The alerts one flush job took: kept per job, not per group, so a dead-lettered flush keeps its
 * own alerts (for `dlq list` and `dlq retry`) while later flushes of the group carry on with theirs.
 */
export function inflightKey(prefix: string, hash: string, flushJobId: string): string {
  return `${prefix}:grp:${hash}:inflight:${flushJobId}`;
}

/** SCAN pattern matching every group's buffer key. */
export function groupBufferPattern(prefix: string): string {
  return `${prefix}:grp:*:buf`;
}

/** The group hash of a key `groupBufferPattern` matched. */
export function groupHashOfBuffer(prefix: string, bufferKey: string): string {
  return bufferKey.slice(`${prefix}:grp:`.length, -':buf'.length);
}

export function disabledChannelKey(prefix: string, channelId: string): string {
  return `${prefix}:disabled:${channelId}`;
}

export function paceKey(prefix: string, channelId: string): string {
  return `${prefix}:pace:${channelId}`;
}
