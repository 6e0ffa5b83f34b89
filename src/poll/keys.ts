/**
 * The poll's Redis key, under the run's prefix: one target's lease (lease.ts). The workspace is
 * URI-encoded so a ':' in it cannot make the key ambiguous. Do not change the string: a running
 * worker's lease is found by it.
 */
export function leaseKey(prefix: string, workspace: string, targetId: string): string {
  return `${prefix}:lease:${encodeURIComponent(workspace)}:${targetId}`;
}
