import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { TargetRef } from '../../src/model/observation.ts';
import { SnapshotDecodeError } from '../../src/snapshot/errors.ts';
import { RedisSnapshotStore } from '../../src/snapshot/store.ts';
import { findRedisServerBinary, startPrivateRedis } from '../../src/tools/private-redis.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { book, keywords, reranked, targetOf } from './fixtures.ts';
import { defineSnapshotStoreConformance } from './store-conformance.ts';

const prefix = testPrefix('snapshot-store');
const redis = testRedis(prefix);

defineSnapshotStoreConformance('redis', () => new RedisSnapshotStore({ redis, prefix }));

async function keysUnder(match: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', match, 'COUNT', 500);
    cursor = next;
    found.push(...keys);
  } while (cursor !== '0');
  return found.sort();
}

const ws = () => `ws-${randomBytes(4).toString('hex')}`;
const next = (observation: ReturnType<typeof keywords>, committedAt = 1) => ({
  observation,
  ruleState: null,
  committedAt,
});

describe('RedisSnapshotStore', () => {
  it('sets a TTL on every key it writes, and each commit refreshes it', async () => {
    const store = new RedisSnapshotStore({ redis, prefix, ttlMs: 60_000 });
    const workspace = ws();
    const target = targetOf(workspace, keywords(30));
    await store.commit(target, next(keywords(30)), 0);
    await store.setHealth(target, { ...(await store.getHealth(target)), consecutiveFailures: 1 });
    const keys = await keysUnder(`${prefix}:*${workspace}*`);
    expect(keys.map((k) => k.split(':')[1])).toEqual(['health', 'kwdict', 'snap', 'targets']);
    for (const key of keys) {
      const ttl = await redis.pttl(key);
      expect(ttl, key).toBeGreaterThan(55_000);
      expect(ttl, key).toBeLessThanOrEqual(60_000);
      await redis.pexpire(key, 1_000);
    }
    await store.commit(target, next(reranked(keywords(30), 2), 2), 1);
    for (const key of keys.filter((k) => !k.includes(':health:'))) {
      expect(await redis.pttl(key), key).toBeGreaterThan(55_000);
    }
    expect(await redis.pttl(keys.find((k) => k.includes(':health:'))!)).toBeLessThanOrEqual(1_000);
  });

  it('stores one dictionary for the snapshots of one keyword list, and only ranks per snapshot', async () => {
    const store = new RedisSnapshotStore({ redis, prefix });
    const workspace = ws();
    const list = keywords(1000, 11);
    for (const id of ['keywords:a', 'keywords:b']) {
      const target = targetOf(workspace, list, id);
      await store.commit(target, next(list), 0);
      await store.commit(target, next(reranked(list, 3), 2), 1);
    }
    const dictionaries = await keysUnder(`${prefix}:kwdict:${workspace}:*`);
    expect(dictionaries).toHaveLength(1);
    const dictionaryBytes = Number(await redis.memory('USAGE', dictionaries[0]!, 'SAMPLES', 0));
    const snapshotBytes = Number(
      await redis.memory('USAGE', `${prefix}:snap:${workspace}:keywords:a`, 'SAMPLES', 0),
    );
    expect(dictionaryBytes).toBeGreaterThan(15_000);
    expect(snapshotBytes).toBeLessThan(4_500);
    // A fresh store (no cache) decodes it from Redis.
    const fresh = new RedisSnapshotStore({ redis, prefix });
    expect((await fresh.get(targetOf(workspace, list, 'keywords:b')))?.observation).toEqual(
      reranked(list, 3),
    );
  });

  it('re-sends a dictionary that vanished from Redis while this process had it cached', async () => {
    const store = new RedisSnapshotStore({ redis, prefix });
    const workspace = ws();
    const target = targetOf(workspace, keywords(40));
    await store.commit(target, next(keywords(40)), 0);
    const [dictionary] = await keysUnder(`${prefix}:kwdict:${workspace}:*`);
    await redis.del(dictionary!);
    expect(await store.commit(target, next(reranked(keywords(40), 4), 2), 1)).toBe(true);
    expect(await redis.exists(dictionary!)).toBe(1);
    const fresh = new RedisSnapshotStore({ redis, prefix });
    expect((await fresh.get(target))?.pollSeq).toBe(2);
  });

  it('reports a snapshot whose dictionary is gone as SnapshotDecodeError with its seq, so it can be re-baselined', async () => {
    const store = new RedisSnapshotStore({ redis, prefix });
    const workspace = ws();
    const target = targetOf(workspace, keywords(40));
    await store.commit(target, next(keywords(40)), 0);
    await redis.del(...(await keysUnder(`${prefix}:kwdict:${workspace}:*`)));
    const fresh = new RedisSnapshotStore({ redis, prefix });
    const error = await fresh.get(target).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SnapshotDecodeError);
    expect((error as SnapshotDecodeError).message).toMatch(/dictionary .* is missing/);
    expect((error as SnapshotDecodeError).pollSeq).toBe(1);
    expect(await fresh.commit(target, next(keywords(40), 5), 1)).toBe(true);
    expect((await fresh.get(target))?.observation).toEqual(keywords(40));
  });

  it('reports garbage under a snapshot key as SnapshotDecodeError; delete clears the way', async () => {
    const store = new RedisSnapshotStore({ redis, prefix });
    const target: TargetRef = { workspace: ws(), kind: 'book', id: 'book:X' };
    await redis.set(`${prefix}:snap:${target.workspace}:${target.id}`, Buffer.from([0xff, 0x00, 0x13]));
    await expect(store.get(target)).rejects.toMatchObject({ name: 'SnapshotDecodeError', pollSeq: null });
    await expect(
      store.commit(target, { observation: book(), ruleState: null, committedAt: 1 }, 0),
    ).rejects.toBeInstanceOf(SnapshotDecodeError);
    await store.delete(target);
    expect(await store.commit(target, { observation: book(), ruleState: null, committedAt: 1 }, 0)).toBe(
      true,
    );
  });

  it('lets one of two replicas (two connections) win each race', async () => {
    const other = new Redis(redisUrl(), { maxRetriesPerRequest: null });
    try {
      const stores = [
        new RedisSnapshotStore({ redis, prefix }),
        new RedisSnapshotStore({ redis: other, prefix }),
      ];
      const target = targetOf(ws(), keywords(200));
      for (let seq = 0; seq < 10; seq++) {
        const results = await Promise.all(
          stores.map((s, i) => s.commit(target, next(reranked(keywords(200), seq * 2 + i), seq), seq)),
        );
        expect(results.filter(Boolean), `round ${seq}`).toHaveLength(1);
      }
      expect((await stores[1]!.get(target))?.pollSeq).toBe(10);
    } finally {
      await other.quit();
    }
  });

  it('commits after the script cache was flushed (NOSCRIPT falls back to EVAL)', async () => {
    const store = new RedisSnapshotStore({ redis, prefix });
    const target = targetOf(ws(), book());
    await redis.script('FLUSH');
    expect(await store.commit(target, { observation: book(), ruleState: null, committedAt: 1 }, 0)).toBe(
      true,
    );
  });

  it('never writes a credential: no value under the prefix holds the test secrets', async () => {
    const store = new RedisSnapshotStore({ redis, prefix });
    const target = targetOf(ws(), book());
    await store.commit(target, { observation: book(), ruleState: null, committedAt: 1 }, 0);
    await store.setHealth(target, {
      ...(await store.getHealth(target)),
      lastError: 'fetch failed: authorization: Bearer pa_live_SECRET2 api_key=pa_live_SECRET3',
    });
    let checked = 0;
    for (const key of await keysUnder(`${prefix}:*`)) {
      const type = await redis.type(key);
      const values =
        type === 'string' ? [(await redis.getBuffer(key))!] : await redis.zrangeBuffer(key, 0, -1);
      for (const v of values) expect(v.includes('SECRET'), key).toBe(false);
      checked++;
    }
    expect(checked).toBeGreaterThan(10);
  });
});

describe.skipIf(findRedisServerBinary() === undefined)('RedisSnapshotStore on Redis Cluster', () => {
  it('keeps every multi-key operation in the hash tag slot of its prefix', async () => {
    const server = await startPrivateRedis({ extraArgs: ['--cluster-enabled', 'yes'] });
    const node = new Redis(server.url, { maxRetriesPerRequest: null });
    afterAll(async () => {
      await node.quit();
      await server.stop();
    });
    await node.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
    const deadline = Date.now() + 10_000;
    while (!String(await node.call('CLUSTER', 'INFO')).includes('cluster_state:ok')) {
      if (Date.now() > deadline) throw new Error('single-node cluster did not become ok');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const tagged = new RedisSnapshotStore({ redis: node, prefix: '{shelfwatch}' });
    const target = targetOf('ws', keywords(100));
    expect(await tagged.commit(target, next(keywords(100)), 0)).toBe(true);
    expect((await tagged.get(target))?.observation).toEqual(keywords(100));
    expect(await tagged.listTargets('ws')).toEqual([target.id]);
    await tagged.delete(target);
    expect(await tagged.get(target)).toBeUndefined();
    // The control: without a hash tag the same script spans slots, and Cluster refuses it.
    const untagged = new RedisSnapshotStore({ redis: node, prefix: 'shelfwatch' });
    await expect(untagged.commit(target, next(keywords(100)), 0)).rejects.toThrow(/CROSSSLOT/);
  });
});
