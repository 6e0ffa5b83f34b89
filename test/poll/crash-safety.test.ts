import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliverQueueData } from '../../src/deliver/enqueue.ts';
import { processPoll } from '../../src/poll/processor.ts';
import type { SnapshotStore } from '../../src/snapshot/store.ts';
import { allDialects } from '../contract/helpers.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { useSimulator } from '../helpers/sim.ts';
import { createHarness, type Harness, parseOrThrow } from './engine-harness.ts';

// The same scenarios against the assumed contract and against each shipped dialect: the simulator
// speaks the dialect, the workspace reads it through the same contract file (api.contract).
describe.each(allDialects())('against the $name contract', (dialect) => {
  const KEY = 'sk_crash_test_0123456789';
  const prefix = testPrefix(`crash-${dialect.name}`);
  const redis = testRedis(prefix);
  let queue: Queue<DeliverQueueData>;
  let harness: Harness;
  let campaignId: string;

  const fx = useSimulator({
    seed: 5,
    books: 2,
    ...(dialect.sim === undefined ? {} : { dialect: dialect.sim }),
    key: KEY,
    workspace: 'ws-crash',
    plan: 'custom:1000:100000',
  });

  beforeAll(async () => {
    const campaign = fx.campaign();
    campaignId = campaign.campaign_id;
    queue = new Queue<DeliverQueueData>('deliver', { connection: redis, prefix });
    const config = parseOrThrow({
      redis: { prefix },
      workspaces: [
        {
          id: 'ws-crash',
          baseUrl: fx.url,
          apiKey: KEY,
          campaigns: [{ id: campaignId }],
          ...(dialect.file === undefined ? {} : { api: { contract: dialect.file } }),
        },
      ],
      rules: [{ id: 'new-review', kind: 'review_new' }],
    });
    harness = createHarness({ sim: fx.sim, redis, prefix, config, deliveryQueue: queue });
  });

  afterAll(async () => {
    await queue?.close();
    await harness?.close();
  });

  async function deliveryJobIds(): Promise<string[]> {
    const jobs = await queue.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed']);
    return jobs.map((job) => job.id ?? '').sort();
  }

  it('a poll killed after enqueueing and before its commit, then re-run, adds no duplicate delivery', async () => {
    const targetId = `reviews/${campaignId}`;
    const t0 = fx.sim.clock.now();
    expect(await harness.poll(targetId, t0)).toMatchObject({ status: 'ok', baseline: true });
    for (const rating of [5, 2]) {
      await fx.control.event({
        type: 'review',
        campaign_id: campaignId,
        platform: 'amazon',
        rating,
        body: `a ${rating}-star review`,
        reviewer: 'Reader',
      });
    }

    // The process "dies" right after the delivery jobs are in Redis: the commit never happens.
    const dying: SnapshotStore = {
      ...harness.store,
      get: (ref) => harness.store.get(ref),
      getHealth: (ref) => harness.store.getHealth(ref),
      setHealth: (ref, health) => harness.store.setHealth(ref, health),
      delete: (ref) => harness.store.delete(ref),
      listTargets: (ws) => harness.store.listTargets(ws),
      commit: async () => {
        throw new Error('SIGKILL');
      },
    };
    const pollTimeMs = t0 + 60_000;
    const data = { workspace: 'ws-crash', targetId };
    await expect(
      processPoll({ ...harness.deps, store: dying }, data, {
        signal: new AbortController().signal,
        pollTimeMs,
      }),
    ).rejects.toThrow('SIGKILL');
    const afterCrash = await deliveryJobIds();
    expect(afterCrash).toHaveLength(2);

    // BullMQ retries the same job: same scheduled time, same baseline, same fingerprints.
    const rerun = await processPoll(harness.deps, data, { signal: new AbortController().signal, pollTimeMs });
    expect(rerun).toMatchObject({ status: 'ok', alerts: 2, committed: true });
    expect(await deliveryJobIds()).toEqual(afterCrash);

    // And the next scheduled poll sees the reviews as known.
    expect(await harness.poll(targetId, t0 + 120_000)).toMatchObject({ status: 'ok', alerts: 0 });
    expect(await deliveryJobIds()).toEqual(afterCrash);
  });

  it('a second run of an already committed poll is recognised and does nothing', async () => {
    const targetId = `reviews/${campaignId}`;
    const result = await harness.poll(targetId, fx.sim.clock.now() - 1_000_000);
    expect(result).toEqual({ status: 'duplicate' });
  });
});
