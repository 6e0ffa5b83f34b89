import type { TargetRef } from '../model/observation.ts';
import { type KeyPrefix, keyPart, prefixOf } from '../util/redis-keys.ts';

/**
 * Key layout under a prefix (e.g. `{shelfwatch}`):
 *
 *   <prefix>:snap:<ws>:<id>       string  seq header + record (see record.ts)   TTL, refreshed on commit
 *   <prefix>:health:<ws>:<id>     string  JSON tuple (see record.ts)             TTL, refreshed on setHealth
 *   <prefix>:targets:<ws>         zset    id → expiry ms of its snapshot         TTL, refreshed on commit
 *   <prefix>:kwdict:<ws>:<sha256> string  keyword dictionary (encoding.ts)       TTL, refreshed on each commit using it
 *
 * On Redis Cluster the prefix must carry a hash tag so all of these share one slot: the commit
 * script touches a snapshot, a dictionary and the index at once. Dictionaries are scoped to a
 * workspace so one tenant's lists can never be read through, or collide with, another's.
 *
 * The workspace goes in through keyPart (util/redis-keys.ts); the id, being last, keeps its ':' for readable keys and escapes only '%', '{' and '}', so a brace in
 * an id cannot become the hash tag of a key whose prefix has none. Both escapes are injective.
 */
export class SnapshotKeys {
  constructor(private readonly prefix: KeyPrefix) {}

  snapshot(t: TargetRef): string {
    return `${prefixOf(this.prefix, t.workspace)}:snap:${keyPart(t.workspace)}:${id(t.id)}`;
  }

  health(t: TargetRef): string {
    return `${prefixOf(this.prefix, t.workspace)}:health:${keyPart(t.workspace)}:${id(t.id)}`;
  }

  targets(workspace: string): string {
    return `${prefixOf(this.prefix, workspace)}:targets:${keyPart(workspace)}`;
  }

  /** SCAN patterns of every snapshot key of a workspace under `prefix`: to move it to another shard. */
  static patterns(prefix: string, workspace: string): string[] {
    const ws = keyPart(workspace);
    return [
      `${prefix}:snap:${ws}:*`,
      `${prefix}:health:${ws}:*`,
      `${prefix}:targets:${ws}`,
      `${prefix}:kwdict:${ws}:*`,
    ];
  }

  dictionary(workspace: string, dictionaryId: string): string {
    return `${prefixOf(this.prefix, workspace)}:kwdict:${keyPart(workspace)}:${dictionaryId}`;
  }
}

const hex = (c: string): string => `%${c.charCodeAt(0).toString(16).toUpperCase()}`;

function id(targetId: string): string {
  return targetId.replace(/[%{}]/g, hex);
}
