import { type KeyPrefix, keyPart, prefixOf } from '../util/redis-keys.ts';

/**
 * The poll's Redis key, under the run's prefix: one target's lease (lease.ts). Do not change the
 * string: a running worker's lease is found by it.
 */
export function leaseKey(prefix: KeyPrefix, workspace: string, targetId: string): string {
  return `${prefixOf(prefix, workspace)}:lease:${keyPart(workspace)}:${targetId}`;
}
