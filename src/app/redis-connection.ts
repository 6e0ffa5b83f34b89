import { Cluster, Redis } from 'ioredis';

export type RedisConnection = Redis | Cluster;

/**
 * One connection for the process. BullMQ's blocking commands need `maxRetriesPerRequest: null`,
 * and one setting for every use keeps things simple. On Cluster the URL names a seed node; the
 * client discovers the rest, and credentials and TLS of the URL apply to every node.
 */
export function createRedisConnection(settings: { url: string; cluster: boolean }): RedisConnection {
  if (!settings.cluster) return new Redis(settings.url, { maxRetriesPerRequest: null, lazyConnect: true });
  const url = new URL(settings.url);
  const password = url.password === '' ? undefined : decodeURIComponent(url.password);
  const username = url.username === '' ? undefined : decodeURIComponent(url.username);
  return new Cluster([{ host: url.hostname, port: Number(url.port || 6379) }], {
    lazyConnect: true,
    redisOptions: {
      maxRetriesPerRequest: null,
      ...(password === undefined ? {} : { password }),
      ...(username === undefined ? {} : { username }),
      ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
    },
  });
}
