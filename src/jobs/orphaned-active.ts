/**
 * Jobs left `active` with no lock: a worker ran them while Redis refused writes (a full Redis), so
 * neither their completion nor their lock renewals were stored. BullMQ's stalled-job check would put
 * them back only after two checks (up to `stalledInterval` × 2 after the lock expired: a minute for
 * polls), and a scheduler plans its next job only when its current one starts again, so its target
 * goes unpolled for that long. Once writes go through again they are put back in the queue at
 * once, which is what the stalled check does to them later (re-running a poll or a delivery is safe:
 * CAS commits and fingerprinted sends).
 *
 * A lock is set in the same script that makes a job active (BullMQ's moveToActive) and renewed while
 * a worker holds it, so an active job without one is held by no live worker.
 */
import type { Queue } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';

/** `redis` is the queue's own connection (BullMQ 6 keeps its client on a backend it does not expose). */
export async function requeueOrphanedActive(queue: Queue, redis: Redis | Cluster): Promise<string[]> {
  const requeued: string[] = [];
  for (const job of await queue.getActive(0, -1)) {
    if (job.id === undefined) continue;
    if ((await redis.exists(`${queue.toKey(job.id)}:lock`)) === 1) continue;
    // No token: BullMQ's moveJobFromActiveToWait then skips its lock check (there is no lock).
    // A job that finished or was removed meanwhile is refused (its key gone): nothing to put back.
    const moved = await job.moveToWait().then(
      () => true,
      () => false,
    );
    if (moved) requeued.push(job.id);
  }
  return requeued;
}
