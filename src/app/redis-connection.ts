import { Cluster, Redis } from 'ioredis';
import type { Logger } from '../ops/logger.ts';

export type RedisConnection = Redis | Cluster;

/**
 * How a Cluster client rides out a master that is away. `worker` (the long-running `run`) waits:
 * a restarted master answers `CLUSTERDOWN` for about 2 s after it is back (it waits before it
 * takes writes again), and while it is down every command for its slots goes round MOVED (another
 * master names it) and "Connection is closed" (it refuses). ioredis counts each of those as one of
 * `maxRedirections` and gave up after 16 with its defaults, 1.6 s: a rejoin failed the commands
 * in flight. `command` (status, the other one-shot commands) keeps ioredis's defaults, so a master
 * that stays down fails its commands within about 2 s and status can name its shard.
 *
 * Not `clusterNodeRetryStrategy`: it keeps a down node in the pool and queues its commands offline
 * until it is back, which with `maxRetriesPerRequest: null` is forever (status hung on it).
 */
export type ClusterPatience = 'worker' | 'command';

/** About 30 s of CLUSTERDOWN, and about 20 s of a master down (MOVED 0.2 s + refused 0.5 s a round). */
const WORKER_CLUSTER_RETRY = {
  maxRedirections: 60,
  retryDelayOnClusterDown: 500,
  retryDelayOnTryAgain: 500,
  retryDelayOnFailover: 500,
  // Without a delay a MOVED to the down master is resent at once: a tight loop that spends the
  // redirections in milliseconds.
  retryDelayOnMoved: 200,
} as const;

/**
 * One connection for the process. BullMQ's blocking commands need `maxRetriesPerRequest: null`,
 * and one setting for every use keeps things simple. On Cluster the URL names a seed node; the
 * client discovers the rest, and credentials and TLS of the URL apply to every node.
 *
 * Not lazy: BullMQ duplicates this connection for each worker's blocking commands, and a lazy
 * duplicate is connected by BullMQ with `connect()`, whose promise rejects for good ("Connection
 * is closed.") if Redis drops before it is ready: that worker, and every command awaiting it, never
 * recovered, and a `run` started just before a Redis restart exited. An eager connection retries
 * on its own and BullMQ waits for its `ready`.
 */
export function createRedisConnection(
  settings: { url: string; cluster: boolean },
  patience: ClusterPatience = 'command',
): RedisConnection {
  if (!settings.cluster) return new Redis(settings.url, { maxRetriesPerRequest: null, lazyConnect: false });
  const url = new URL(settings.url);
  const password = url.password === '' ? undefined : decodeURIComponent(url.password);
  const username = url.username === '' ? undefined : decodeURIComponent(url.username);
  return new Cluster([{ host: url.hostname, port: Number(url.port || 6379) }], {
    lazyConnect: false,
    ...(patience === 'worker' ? WORKER_CLUSTER_RETRY : {}),
    redisOptions: {
      maxRetriesPerRequest: null,
      ...(password === undefined ? {} : { password }),
      ...(username === undefined ? {} : { username }),
      ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
    },
  });
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * An error that only says Redis is unreachable (refused, reset, closed, still loading its data):
 * the connection watch reports the outage once, so such errors are not worth a line each.
 */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
  return /^(Connection is closed|Stream isn't writeable|LOADING |connect ETIMEDOUT|Failed to refresh slots cache|None of startup nodes is available|Too many Cluster redirections|CLUSTERDOWN )/.test(
    error.message,
  );
}

/**
 * BullMQ's messages for a job whose lock was lost (node_modules/bullmq: `lock-manager.js`,
 * `finished-errors.js`). Past the job lock (30 s) of an outage every active job gets one.
 */
const LOCK_LOSS =
  /^(could not renew lock for job |Missing lock for job |Lock mismatch for job |Job \S+ is not in the active state)/;

export function isLockLossError(error: unknown): boolean {
  return error instanceof Error && LOCK_LOSS.test(error.message);
}

/** How long after Redis is back a lost lock is still put down to the outage. */
export const LOCK_LOSS_GRACE_MS = 60_000;

export interface RedisConnectionWatch {
  /** Stops watching (call it before closing the connection on shutdown, which is not an outage). */
  stop(): void;
  /**
   * True for an error the outage explains: a connection error, or a lost job lock while Redis is
   * down or within `LOCK_LOSS_GRACE_MS` after it came back. Those are not worth a line each.
   */
  explains(error: unknown): boolean;
}

/**
 * Says once that Redis is gone and once that it is back (with how long it was away), instead of
 * a line per reconnect attempt and per BullMQ connection.
 */
export function watchRedisConnection(
  redis: Pick<RedisConnection, 'on' | 'off'>,
  logger: Logger,
  now = Date.now,
): RedisConnectionWatch {
  let lostAt: number | undefined;
  let restoredAt: number | undefined;
  let lastError: string | undefined;
  const onError = (error: Error) => {
    lastError = (error as { code?: string }).code ?? error.message.slice(0, 200);
  };
  const onClose = () => {
    if (lostAt !== undefined) return;
    lostAt = now();
    logger.warn(
      { ...(lastError === undefined ? {} : { reason: lastError }) },
      'redis connection lost; commands wait and the connection retries until it is back',
    );
  };
  const onReady = () => {
    if (lostAt === undefined) return;
    restoredAt = now();
    logger.info({ downMs: restoredAt - lostAt }, 'redis connection restored');
    lostAt = undefined;
    lastError = undefined;
  };
  redis.on('error', onError);
  redis.on('close', onClose);
  redis.on('ready', onReady);
  return {
    stop() {
      redis.off('error', onError);
      redis.off('close', onClose);
      redis.off('ready', onReady);
    },
    explains(error) {
      if (isConnectionError(error)) return true;
      if (!isLockLossError(error)) return false;
      return lostAt !== undefined || (restoredAt !== undefined && now() - restoredAt <= LOCK_LOSS_GRACE_MS);
    },
  };
}
