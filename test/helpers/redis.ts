import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, inject } from 'vitest';

export function redisUrl(): string {
  return inject('redisUrl');
}

/**
 * A key prefix unique to one test file run, with a hash tag so multi-key scripts stay in one slot
 * on Redis Cluster too. Keys under it are deleted after the file's tests.
 */
export function testPrefix(name: string): string {
  return `{swtest-${name}-${randomBytes(4).toString('hex')}}`;
}

/** A connection for the test file; closed, and its prefix's keys deleted, after all tests of the file. */
export function testRedis(prefix: string): Redis {
  const redis = new Redis(redisUrl(), { maxRetriesPerRequest: null, lazyConnect: false });
  afterAll(async () => {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
    await redis.quit();
  });
  return redis;
}
