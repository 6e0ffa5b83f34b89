/**
 * The jobs room's own Redis keys, under the run's prefix (BullMQ's queue keys are BullMQ's:
 * `<prefix>:<queue name>:…`, names in queues.ts):
 *
 *   <prefix>:reconcile-lock         one process at a time makes the poll schedulers match the plan
 *   <prefix>:digest-reconcile-lock  the same for the digest schedulers
 *
 * A running process finds the other's lock by these exact strings: do not change them.
 */
export function reconcileLockKey(prefix: string): string {
  return `${prefix}:reconcile-lock`;
}

export function digestReconcileLockKey(prefix: string): string {
  return `${prefix}:digest-reconcile-lock`;
}

/**
 * The deployment's shard layout (app/shard-layout.ts), on the home prefix: the shard count and
 * the prefix each workspace's keys are under, compared with the config at start.
 */
export function shardLayoutKey(homePrefix: string): string {
  return `${homePrefix}:shard-layout`;
}
