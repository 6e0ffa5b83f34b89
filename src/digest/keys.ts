import { type KeyPrefix, keyPart, prefixOf } from '../util/redis-keys.ts';

/**
 * Every Redis key of the digest, under the run's prefix (its ARC counters are arc/keys.ts'):
 *
 *   <prefix>:digest:last|sent|lock:<ws>:<channel>[:<date>]  what was sent to a recipient (state.ts)
 *
 * Stored data is read back by these exact strings: do not change them.
 */
export function digestStateKey(
  prefix: KeyPrefix,
  kind: 'last' | 'sent' | 'lock',
  workspace: string,
  channel: string,
  date?: string,
): string {
  const base = `${prefixOf(prefix, workspace)}:digest:${kind}:${keyPart(workspace)}:${channel}`;
  return date === undefined ? base : `${base}:${date}`;
}

/** SCAN patterns of every digest key of a workspace: to move it to another shard. */
export function digestKeyPatterns(prefix: string, workspace: string): string[] {
  return (['last', 'sent', 'lock'] as const).map(
    (kind) => `${prefix}:digest:${kind}:${keyPart(workspace)}:*`,
  );
}
