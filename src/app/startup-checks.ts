import type { Cluster, Redis } from 'ioredis';
import { withTimeout } from '../util/timeout.ts';

export interface StartupProblem {
  level: 'error' | 'warn';
  message: string;
}

export interface RedisCheck {
  /** False when any problem is an error: the process should not start. */
  ok: boolean;
  problems: StartupProblem[];
  /** What was read, for the start-up log line; absent when it could not be read. */
  found: { version?: string; maxmemoryPolicy?: string };
}

/** BullMQ's Lua scripts use commands and options that older servers lack. */
export const MIN_REDIS_VERSION = '6.2.0';

/**
 * Checks the server the queues will live on: its version (an error below 6.2) and its eviction
 * policy (a warning unless `noeviction`: an evicted key is a lost job, lock or budget counter).
 * Managed services often disable CONFIG, so the policy is read from INFO when CONFIG fails.
 */
export async function checkRedis(redis: Redis | Cluster, timeoutMs = 5_000): Promise<RedisCheck> {
  const attempt = async <T>(read: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await withTimeout(read(), timeoutMs, 'Redis');
    } catch {
      return undefined;
    }
  };
  const serverInfo = await attempt(() => redis.info('server'));
  const version = serverInfo === undefined ? undefined : infoField(serverInfo, 'redis_version');
  let policy = await attempt(async () => {
    const reply: unknown = await redis.config('GET', 'maxmemory-policy');
    return Array.isArray(reply) && typeof reply[1] === 'string' ? reply[1] : undefined;
  });
  if (policy === undefined) {
    const memoryInfo = await attempt(() => redis.info('memory'));
    policy = memoryInfo === undefined ? undefined : infoField(memoryInfo, 'maxmemory_policy');
  }
  return assessRedis({ version, maxmemoryPolicy: policy });
}

/** The verdict on what was read; separate from the reading so every branch can be tested. */
export function assessRedis(found: {
  version: string | undefined;
  maxmemoryPolicy: string | undefined;
}): RedisCheck {
  const problems: StartupProblem[] = [];
  const { version, maxmemoryPolicy } = found;
  if (version === undefined) {
    problems.push({
      level: 'warn',
      message: `could not read the Redis version (INFO server failed or was denied); BullMQ needs Redis ${shortVersion(MIN_REDIS_VERSION)} or newer — check the server's version yourself`,
    });
  } else if (compareVersions(version, MIN_REDIS_VERSION) < 0) {
    problems.push({
      level: 'error',
      message: `BullMQ needs Redis ${shortVersion(MIN_REDIS_VERSION)} or newer; found ${version}. Upgrade the server or point redis.url / REDIS_URL at one that is ${shortVersion(MIN_REDIS_VERSION)}+`,
    });
  }
  if (maxmemoryPolicy === undefined) {
    problems.push({
      level: 'warn',
      message:
        'could not check maxmemory-policy (CONFIG GET and INFO memory both failed or were denied); make sure it is noeviction, or Redis may evict queue keys and lose jobs under memory pressure',
    });
  } else if (maxmemoryPolicy !== 'noeviction') {
    problems.push({
      level: 'warn',
      message: `maxmemory-policy is ${maxmemoryPolicy}; it should be noeviction, or Redis may evict queue keys and lose jobs under memory pressure. Set "maxmemory-policy noeviction" in redis.conf (managed Redis: in its parameter group) or run CONFIG SET maxmemory-policy noeviction`,
    });
  }
  return {
    ok: problems.every((p) => p.level !== 'error'),
    problems,
    found: {
      ...(version === undefined ? {} : { version }),
      ...(maxmemoryPolicy === undefined ? {} : { maxmemoryPolicy }),
    },
  };
}

/** One `field:value` line of an INFO reply. */
export function infoField(info: string, field: string): string | undefined {
  for (const line of info.split(/\r?\n/)) {
    if (line.startsWith(`${field}:`)) return line.slice(field.length + 1).trim();
  }
  return undefined;
}

/** Numeric comparison of dotted versions; missing or non-numeric parts count as 0. */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.split('.').map((p) => Number.parseInt(p, 10) || 0);
  const pa = parts(a);
  const pb = parts(b);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const diff = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (diff !== 0) return Math.sign(diff);
  }
  return 0;
}

function shortVersion(v: string): string {
  return v.replace(/\.0$/, '');
}
