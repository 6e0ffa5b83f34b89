/**
 * Failed sign-ins counted in Redis, so every process serving the console shares the counts. Each
 * failure counts against several buckets at once (the client's address, the secret or account
 * being guessed); a bucket over its limit refuses every attempt, right or wrong, until its window
 * ends. Nothing here knows forms or tokens: a future sign-in for people uses it with its own buckets.
 */
import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { accessKeys } from './keys.ts';

export interface ThrottleLimit {
  /** What the bucket counts by (`client`, `secret`, `account`): part of the key and of the refusal. */
  scope: string;
  /** Failures allowed in one window. */
  max: number;
  windowMs: number;
}

/** One attempt's buckets: for each limit's scope, the value it counts by (an address, a name). */
export type ThrottleSubjects = Readonly<Record<string, string>>;

export interface ThrottleRefusal {
  scope: string;
  retryAfterMs: number;
}

const hash = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 22);

export class FailureThrottle {
  private readonly keys;

  constructor(
    private readonly redis: Redis | Cluster,
    prefix: string,
    private readonly limits: readonly ThrottleLimit[],
  ) {
    this.keys = accessKeys(prefix);
  }

  private bucketKeys(subjects: ThrottleSubjects): { limit: ThrottleLimit; key: string }[] {
    return this.limits.flatMap((limit) => {
      const value = subjects[limit.scope];
      return value === undefined ? [] : [{ limit, key: this.keys.failures(limit.scope, hash(value)) }];
    });
  }

  /** The first full bucket and how long until it empties; undefined when the attempt may go ahead. */
  async refusal(subjects: ThrottleSubjects): Promise<ThrottleRefusal | undefined> {
    for (const { limit, key } of this.bucketKeys(subjects)) {
      const [count, ttl] = await Promise.all([this.redis.get(key), this.redis.pttl(key)]);
      if (Number(count ?? 0) >= limit.max)
        return { scope: limit.scope, retryAfterMs: ttl > 0 ? ttl : limit.windowMs };
    }
    return undefined;
  }

  /** Counts one failure in every bucket; the window starts at a bucket's first failure. */
  async failed(subjects: ThrottleSubjects): Promise<void> {
    for (const { limit, key } of this.bucketKeys(subjects)) {
      await this.redis.multi().set(key, '0', 'PX', limit.windowMs, 'NX').incr(key).exec();
    }
  }

  /** Forgets the failures of these buckets (a client that got in is not an attacker). */
  async succeeded(subjects: ThrottleSubjects): Promise<void> {
    for (const { key } of this.bucketKeys(subjects)) await this.redis.del(key);
  }
}
