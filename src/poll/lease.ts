import type { Cluster, Redis } from 'ioredis';
import type { TargetRef } from '../model/observation.ts';
import type { KeyPrefix } from '../util/redis-keys.ts';
import { leaseKey } from './keys.ts';

// KEYS: lease. ARGV: owner, ttl. Taken when free or already ours (the same poll run again).
const ACQUIRE = `
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

/**
 * One poll of a target at a time, across every worker process. Two overlapping polls would each
 * judge the change from the baseline they read, and the one that loses the commit would already
 * have enqueued its alerts: the same change alerted twice under two fingerprints. The owner is the
 * poll's scheduled time, so a retry of the same poll (after a crash) takes the lease it held.
 */
export class TargetLease {
  constructor(
    private readonly redis: Redis | Cluster,
    private readonly prefix: KeyPrefix,
    // Short, and renewed while the poll runs: a killed worker's lease expires within seconds.
    private readonly ttlMs = 10_000,
  ) {}

  private key(ref: TargetRef): string {
    return leaseKey(this.prefix, ref.workspace, ref.id);
  }

  /** A release function, or null when another poll of the target is under way. */
  async acquire(ref: TargetRef, pollTimeMs: number): Promise<(() => Promise<void>) | null> {
    const key = this.key(ref);
    const owner = String(pollTimeMs);
    const taken = Number(await this.redis.eval(ACQUIRE, 1, key, owner, this.ttlMs));
    if (taken !== 1) return null;
    const renew = setInterval(
      () => {
        this.redis.eval(ACQUIRE, 1, key, owner, this.ttlMs).catch(() => {});
      },
      Math.floor(this.ttlMs / 3),
    );
    renew.unref();
    return async () => {
      clearInterval(renew);
      await this.redis.eval(RELEASE, 1, key, owner);
    };
  }
}
