import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Runtime } from '../../src/app/runtime.ts';
import { ensureShardLayout, migrateShards, ShardLayoutError } from '../../src/app/shard-layout.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { type PrivateRedis, startPrivateRedis } from '../../src/tools/private-redis.ts';
import { parseOrThrow } from '../poll/engine-harness.ts';

/** Keys written by the version before shards (test/fixtures/pre-shards/generate.ts says how). */
interface Fixture {
  madeAtMs: number;
  workspaces: string[];
  books: string[];
  campaign: string;
  keys: { key: string; ttl: number; dump: string }[];
}
const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/pre-shards/keys.json', import.meta.url), 'utf8'),
) as Fixture;

let server: PrivateRedis;
let redis: Redis;

function runtimeFor(shards?: unknown): Runtime {
  const config = parseOrThrow({
    redis: { url: server.url, prefix: '{shelfwatch}', ...(shards === undefined ? {} : { shards }) },
    workspaces: fixture.workspaces.map((id) => ({
      id,
      baseUrl: 'http://127.0.0.1:9',
      apiKey: `sk_fixture_${id}_0123456789`,
      plan: 'custom:600:100000',
      sales: false,
      keywordSource: 'snapshot',
      books: fixture.books.map((asin) => ({ asin, keywords: { top: 5 } })),
      campaigns: [{ id: fixture.campaign }],
    })),
    rules: [{ id: 'new-review', kind: 'review_new' }],
    channels: [{ id: 'log', type: 'log' }],
  });
  return new Runtime({
    config,
    logger: silentLogger(),
    version: 'test',
    clock: { now: () => fixture.madeAtMs },
  });
}

/** What a deployment would miss if keys were lost: every target's snapshot, budgets, the alert log. */
async function state(runtime: Runtime) {
  const snapshots: Record<string, unknown> = {};
  const months: Record<string, number> = {};
  for (const ws of fixture.workspaces) {
    for (const target of runtime.registry.all(ws))
      snapshots[`${ws}/${target.ref.id}`] = await runtime.store.get(target.ref);
    months[ws] = (await runtime.budget.usage(ws)).monthUsed;
  }
  return { snapshots, months, alertLog: await runtime.alertLog.size() };
}

beforeAll(async () => {
  server = await startPrivateRedis();
  redis = new Redis(server.url);
  for (const { key, ttl, dump } of fixture.keys)
    await redis.restore(key, Math.max(ttl, 0), Buffer.from(dump, 'base64'));
}, 30_000);

afterAll(async () => {
  await redis?.quit();
  await server?.stop();
});

describe('a deployment from before shards', () => {
  it('starts with one shard (the default) reading every key it had, and writes no layout', async () => {
    const runtime = runtimeFor();
    try {
      await ensureShardLayout(runtime);
      for (const { key } of fixture.keys) expect(await redis.exists(key), key).toBe(1);
      expect(await redis.dbsize()).toBe(fixture.keys.length);
      const found = await state(runtime);
      expect(Object.values(found.snapshots).every((s) => s !== undefined)).toBe(true);
      expect(Object.keys(found.snapshots)).toHaveLength(
        fixture.workspaces.length * (fixture.books.length * 2 + 1),
      );
      for (const ws of fixture.workspaces) expect(found.months[ws]).toBeGreaterThan(0);
      expect(found.alertLog).toBeGreaterThanOrEqual(2);
    } finally {
      await runtime.close();
    }
  });

  it('is refused three shards until migrated, then has every workspace on its shard with nothing lost', async () => {
    const before = runtimeFor();
    const expected = await state(before);
    await before.close();
    const runtime = runtimeFor({ count: 3, pin: { '1': ['acme'], '2': ['bolt'] } });
    try {
      const refused = await ensureShardLayout(runtime).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ShardLayoutError);
      expect((refused as Error).message).toMatch(
        /1 shard\) is not the config's \(3\).*acme.*bolt.*shelfwatch shards migrate/,
      );
      expect((await migrateShards(runtime, true)).keysMoved).toBe(0);

      const report = await migrateShards(runtime);
      expect(report.moves.map((m) => m.workspace)).toEqual(['acme', 'bolt']);
      await ensureShardLayout(runtime);
      expect(await state(runtime)).toEqual(expected);
      // Nothing of either workspace is left under the home prefix; the rest (queues, alert log) stays.
      const home = await redis.keys('{shelfwatch}:*');
      expect(
        home.filter((key) => /:(snap|health|targets|kwdict|budget|hist):(acme|bolt)\b/.test(key)),
      ).toEqual([]);
      expect(home).toContain('{shelfwatch}:alertlog');
      for (const ws of ['acme', 'bolt']) {
        const prefix = runtime.shardMap.of(ws);
        expect(prefix).not.toBe('{shelfwatch}');
        expect((await redis.keys(`${prefix}:snap:${ws}:*`)).length).toBe(fixture.books.length * 2 + 1);
      }
    } finally {
      await runtime.close();
    }
  });
});
