import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budgetKeys } from '../../src/budget/keys.ts';
import { RedisRequestBudget } from '../../src/budget/request-budget.ts';
import { acquireScript } from '../../src/budget/scripts.ts';
import {
  findRedisServerBinary,
  type PrivateRedis,
  startPrivateRedis,
} from '../../src/tools/private-redis.ts';
import { ManualClock, systemClock } from '../../src/util/clock.ts';

const T0 = Date.UTC(2026, 10, 21, 14, 0, 0);

/**
 * A one-node Redis Cluster owning all slots: the server still rejects a script whose keys hash
 * to different slots (CROSSSLOT), which is what this checks the key layout against.
 */
describe.skipIf(findRedisServerBinary() === undefined)('RedisRequestBudget on Redis Cluster', () => {
  let server: PrivateRedis;
  let cluster: Cluster;

  beforeAll(async () => {
    // Without an announced address a lone node reports an empty host in CLUSTER SLOTS, and the
    // client would never find it.
    server = await startPrivateRedis({
      extraArgs: ['--cluster-enabled', 'yes', '--cluster-announce-ip', '127.0.0.1'],
    });
    const admin = new Redis(server.url);
    await admin.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
    const deadline = Date.now() + 10_000;
    while (!String(await admin.call('CLUSTER', 'INFO')).includes('cluster_state:ok')) {
      if (Date.now() > deadline) throw new Error('cluster did not become ok within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await admin.quit();
    cluster = new Cluster([{ host: '127.0.0.1', port: server.port }], {
      redisOptions: { maxRetriesPerRequest: null },
    });
  });

  afterAll(async () => {
    await cluster?.quit();
    await server?.stop();
  });

  it('runs every script with a hash-tagged prefix', async () => {
    const clock = new ManualClock(T0);
    const budget = new RedisRequestBudget({ redis: cluster, prefix: '{shelfwatch}', clock });
    const limits = { perMinute: 2, perMonth: 10 };
    for (const ws of ['acme', 'globex']) {
      expect(await budget.tryAcquire(ws, limits, 2)).toEqual({ granted: true, minuteUsed: 2, monthUsed: 2 });
      expect(await budget.tryAcquire(ws, limits)).toMatchObject({ granted: false, reason: 'minute' });
    }
    await budget.pauseUntil('acme', T0 + 5_000, 'rate_limited');
    expect(await budget.syncMonthUsed('acme', 7)).toBe(7);
    expect(await budget.usage('acme')).toMatchObject({
      monthUsed: 7,
      minuteUsed: 2,
      pausedUntilMs: T0 + 5_000,
    });
    await budget.resume('acme');
    expect((await budget.usage('acme')).pausedUntilMs).toBeNull();
  });

  it('takes Redis TIME inside the scripts on Cluster too (a real-time clock), refunds and syncs the minute', async () => {
    const budget = new RedisRequestBudget({ redis: cluster, prefix: '{shelfwatch}', clock: systemClock });
    const limits = { perMinute: 3, perMonth: 10 };
    const { decision, grant } = await budget.reserve('initech', limits, 3);
    expect(decision).toEqual({ granted: true, minuteUsed: 3, monthUsed: 3 });
    if (grant !== undefined) await budget.refund(grant, 2);
    expect(await budget.syncMinuteUsed('initech', 2)).toBe(1);
    await budget.pauseUntil('initech', Date.now() + 5_000, 'rate_limited');
    expect(await budget.tryAcquire('initech', limits)).toMatchObject({ granted: false, reason: 'paused' });
    expect(await budget.usage('initech')).toMatchObject({ minuteUsed: 2, monthUsed: 1 });
  });

  it('refuses an untagged prefix, whose keys the server would reject as CROSSSLOT', async () => {
    expect(
      () => new RedisRequestBudget({ redis: cluster, prefix: 'shelfwatch', clock: new ManualClock(T0) }),
    ).toThrow(/hash tag/);
    const keys = budgetKeys('shelfwatch', 'acme');
    await expect(
      acquireScript.run(
        cluster,
        [keys.window, keys.month('2026-11'), keys.pause],
        [T0, 61_000, 1, 1, 1, 1, 1, 'x', 1],
      ),
    ).rejects.toThrow(/CROSSSLOT/);
  });
});
