/**
 * Which Redis the demo uses, in the order a newcomer's machine is likely to offer one: the
 * REDIS_URL they set, a server already answering on localhost:6379 (used under a prefix of its
 * own and cleaned afterwards), or a throw-away `redis-server` the demo starts and stops itself.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { redact } from '../../util/redact.ts';
import { type PrivateRedis, RedisServerUnavailableError, startPrivateRedis } from '../private-redis.ts';
import { DemoError } from './errors.ts';

/** `auto` (the order above), `private` (always start one), or a redis:// URL. */
export type RedisChoice = 'auto' | 'private' | { url: string };

export interface DemoRedis {
  url: string;
  /** What to tell the user: where it came from and where it is (no password). */
  description: string;
  /** Set when the demo started the server: stopping it is part of the shutdown. */
  server: PrivateRedis | undefined;
}

const LOCAL_URL = 'redis://127.0.0.1:6379';

export const NO_REDIS_HELP =
  'no Redis for the demo: set REDIS_URL, start one on localhost:6379 (docker run --rm -p 6379:6379 redis:7), or install redis-server (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis)';

/** A unique key prefix; the hash tag keeps BullMQ's multi-key scripts in one Cluster slot. */
export function demoPrefix(): string {
  return `{shelfwatch-demo-${randomBytes(4).toString('hex')}}`;
}

/** True when a Redis answers PING at `url` within `timeoutMs`; never retries, never throws. */
export async function redisAnswers(url: string, timeoutMs = 1_000): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

async function startOwn(): Promise<DemoRedis> {
  try {
    const server = await startPrivateRedis();
    return { url: server.url, description: `a private redis-server on ${server.url}`, server };
  } catch (error) {
    if (error instanceof RedisServerUnavailableError) throw new DemoError(NO_REDIS_HELP, { cause: error });
    throw error;
  }
}

/**
 * A Redis the user named must answer now: checked before anything else starts, so a typo gives one
 * clear line instead of a minute of reconnect errors from every queue.
 */
async function given(url: string, origin: string): Promise<DemoRedis> {
  if (!(await redisAnswers(url, 3_000))) {
    throw new DemoError(
      `no Redis answers at ${redact(url)} (from ${origin}): start it, or run the demo without ${origin} to let it find or start one`,
    );
  }
  return { url, description: `${origin} (${redact(url)})`, server: undefined };
}

export async function chooseRedis(choice: RedisChoice, envUrl: string | undefined): Promise<DemoRedis> {
  if (choice === 'private') return startOwn();
  if (typeof choice === 'object') return given(choice.url, '--redis');
  if (envUrl !== undefined && envUrl.trim() !== '') return given(envUrl.trim(), 'REDIS_URL');
  if (await redisAnswers(LOCAL_URL)) {
    return { url: LOCAL_URL, description: 'the Redis on localhost:6379', server: undefined };
  }
  return startOwn();
}

/** Deletes every key under `prefix` (and nothing else); returns how many there were. */
export async function deletePrefix(url: string, prefix: string): Promise<number> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 5_000 });
  client.on('error', () => {});
  let deleted = 0;
  try {
    await client.connect();
    // The prefix holds no glob characters but "{" and "}", which MATCH takes literally.
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) deleted += await client.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    await client.quit().catch(() => client.disconnect());
  }
  return deleted;
}
