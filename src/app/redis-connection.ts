import { Cluster, Redis } from 'ioredis';
import type { Logger } from '../ops/logger.ts';

export type RedisConnection = Redis | Cluster;

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
export function createRedisConnection(settings: { url: string; cluster: boolean }): RedisConnection {
  if (!settings.cluster) return new Redis(settings.url, { maxRetriesPerRequest: null, lazyConnect: false });
  const url = new URL(settings.url);
  const password = url.password === '' ? undefined : decodeURIComponent(url.password);
  const username = url.username === '' ? undefined : decodeURIComponent(url.username);
  return new Cluster([{ host: url.hostname, port: Number(url.port || 6379) }], {
    lazyConnect: false,
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
  return /^(Connection is closed|Stream isn't writeable|LOADING |connect ETIMEDOUT|Failed to refresh slots cache|None of startup nodes is available)/.test(
    error.message,
  );
}

/**
 * Says once that Redis is gone and once that it is back (with how long it was away), instead of
 * a line per reconnect attempt and per BullMQ connection. Returns a function that stops watching
 * (call it before closing the connection on shutdown, which is not an outage).
 */
export function watchRedisConnection(redis: RedisConnection, logger: Logger, now = Date.now): () => void {
  let lostAt: number | undefined;
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
    logger.info({ downMs: now() - lostAt }, 'redis connection restored');
    lostAt = undefined;
    lastError = undefined;
  };
  redis.on('error', onError);
  redis.on('close', onClose);
  redis.on('ready', onReady);
  return () => {
    redis.off('error', onError);
    redis.off('close', onClose);
    redis.off('ready', onReady);
  };
}
