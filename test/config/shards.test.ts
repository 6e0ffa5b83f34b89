import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.ts';
import { ShardMap, shardPrefixes } from '../../src/config/shards.ts';
import { type PrivateRedis, startPrivateRedis } from '../../src/tools/private-redis.ts';
import { HASH_SLOTS, hashSlot } from '../../src/util/redis-keys.ts';
import { problemAt, validRaw } from './helpers.ts';

type Raw = Record<string, unknown>;

function parseWith(redis: Raw, extraWorkspaces: string[] = []) {
  const raw = validRaw();
  raw.redis = redis;
  const first = (raw.workspaces as Raw[])[0] as Raw;
  raw.workspaces = [first, ...extraWorkspaces.map((id) => ({ ...first, id }))];
  return parseConfig(raw);
}

describe('redis.shards in the config', () => {
  it('defaults to one shard: the configured prefix, as before shards', () => {
    const result = parseWith({});
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    expect(result.config.redis.shards).toEqual({ count: 1, pin: {} });
    const map = new ShardMap(result.config.redis.prefix, result.config.redis.shards);
    expect(map.prefixes).toEqual(['{shelfwatch}']);
    expect(map.of('acme')).toBe('{shelfwatch}');
  });

  it('refuses a workspace pinned on two shards, naming both', () => {
    const result = parseWith({ shards: { count: 3, pin: { '1': ['acme'], '2': ['bolt', 'acme'] } } }, [
      'bolt',
    ]);
    if (result.ok) throw new Error('parsed');
    const problem = problemAt(result.problems, 'redis.shards.pin.2[1]');
    expect(problem.message).toBe('expected each workspace on one shard, got "acme" on shards 1 and 2');
  });

  it('refuses shards out of range, unknown workspaces and many shards without a hash tag', () => {
    const result = parseWith({ prefix: 'plain', shards: { count: 2, serve: [2], pin: { '5': ['nope'] } } });
    if (result.ok) throw new Error('parsed');
    expect(problemAt(result.problems, 'redis.prefix').message).toMatch(/hash tag.*count is 2/);
    expect(problemAt(result.problems, 'redis.shards.serve[0]').message).toBe(
      'expected a shard from 0 to 1, got 2',
    );
    expect(problemAt(result.problems, 'redis.shards.pin.5').message).toBe(
      'expected a shard from 0 to 1, got 5',
    );
    expect(problemAt(result.problems, 'redis.shards.pin.5[0]').message).toMatch(
      /configured workspace, got "nope"/,
    );
  });
});

describe('ShardMap', () => {
  it('keeps home on the configured prefix and puts each other shard in its own slot range', () => {
    for (const count of [2, 3, 4, 6, 16]) {
      const prefixes = shardPrefixes('{shelfwatch}', count);
      expect(prefixes[0]).toBe('{shelfwatch}');
      const ranges = prefixes.map((p) => Math.floor((hashSlot(`${p}:x`) * count) / HASH_SLOTS));
      expect(new Set(ranges).size, `${count}: ${prefixes.join(' ')}`).toBe(count);
    }
  });

  it('places a workspace by a stable function of its id, or where it is pinned', () => {
    const map = new ShardMap('{sw}', { count: 3, pin: { '2': ['pinned'] } });
    const again = new ShardMap('{sw}', { count: 3, pin: {} });
    const ids = Array.from({ length: 300 }, (_, i) => `ws-${i}`);
    expect(ids.map((id) => map.shardOf(id))).toEqual(ids.map((id) => again.shardOf(id)));
    const counts = [0, 1, 2].map((s) => ids.filter((id) => map.shardOf(id) === s).length);
    for (const n of counts) expect(n).toBeGreaterThan(70);
    expect(map.shardOf('pinned')).toBe(2);
    expect(map.of('pinned')).toBe(map.prefixes[2]);
  });
});

describe('hashSlot', () => {
  let server: PrivateRedis;
  let redis: Redis;
  beforeAll(async () => {
    server = await startPrivateRedis({ extraArgs: ['--cluster-enabled', 'yes'] });
    redis = new Redis(server.url);
  }, 30_000);
  afterAll(async () => {
    await redis?.quit();
    await server?.stop();
  });

  it("is Redis Cluster's CLUSTER KEYSLOT, hash tags included", async () => {
    const keys = [
      '{shelfwatch}:x',
      'foo{}{bar}',
      'a{}',
      '{user1000}.following',
      'plain',
      'é{ü}',
      ...shardPrefixes('{shelfwatch}', 16),
    ];
    for (const key of keys)
      expect(hashSlot(key), key).toBe(Number(await redis.call('CLUSTER', 'KEYSLOT', key)));
  });
});
