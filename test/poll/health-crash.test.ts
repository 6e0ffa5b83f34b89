/**
 * A poll killed around the enqueue of the source-health alert it raised (chaos seed 1): the stored
 * streak state and the alert stay consistent, so the recovery is announced once the API answers.
 */
import { Queue } from 'bullmq';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import type { DeliverQueueData } from '../../src/deliver/enqueue.ts';
import { type AlertSink, type PollDeps, processPoll } from '../../src/poll/processor.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { useSimulator } from '../helpers/sim.ts';
import { createHarness, type Harness, parseOrThrow } from './engine-harness.ts';

const KEY = 'sk_health_crash_0123456789';
const prefix = testPrefix('health-crash');
const redis = testRedis(prefix);
let queue: Queue<DeliverQueueData>;
let harness: Harness;
let targetId: string;

const fx = useSimulator({
  seed: 5,
  books: 2,
  key: KEY,
  workspace: 'ws-crash',
  plan: 'custom:1000:100000',
});

beforeAll(async () => {
  const campaign = fx.campaign();
  targetId = `reviews/${campaign.campaign_id}`;
  queue = new Queue<DeliverQueueData>('deliver', { connection: redis, prefix });
  const config = parseOrThrow({
    redis: { prefix },
    workspaces: [{ id: 'ws-crash', baseUrl: fx.url, apiKey: KEY, campaigns: [{ id: campaign.campaign_id }] }],
    rules: [{ id: 'health', kind: 'source_health', failures: 2 }],
  });
  harness = createHarness({ sim: fx.sim, redis, prefix, config, deliveryQueue: queue });
  expect(await harness.poll(targetId)).toMatchObject({ status: 'ok', baseline: true });
});

afterAll(async () => {
  await queue?.close();
  await harness?.close();
});

beforeEach(async () => {
  await queue.obliterate({ force: true });
  await fx.control.clearFaults();
});
afterEach(() => fx.control.clearFaults());

async function deliveredKinds(): Promise<string[]> {
  const jobs = await queue.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed']);
  return jobs.flatMap((job) => ('alert' in job.data ? [job.data.alert.kind] : [])).sort();
}

const run = (deps: PollDeps, pollTimeMs: number) =>
  processPoll(
    deps,
    { workspace: 'ws-crash', targetId },
    { signal: new AbortController().signal, pollTimeMs },
  );

/** A sink that dies (SIGKILL) right before or right after its alerts reach the delivery queue. */
const dyingSink = (when: 'before' | 'after'): AlertSink => ({
  async enqueue(alerts) {
    if (when === 'after') await harness.deps.alerts.enqueue(alerts);
    if (alerts.length > 0) throw new Error('SIGKILL');
  },
});

// Two failed polls in a row, the second dying around the enqueue of the alert it raised; then the
// same poll runs again (a stalled job) and the API answers.
async function failTwiceDyingAt(when: 'before' | 'after', base: number): Promise<void> {
  await fx.control.fault({
    kind: 'status',
    status: 503,
    code: 'unavailable',
    count: 100,
    pathPrefix: '/v1/arc',
  });
  expect(await run(harness.deps, base)).toMatchObject({ status: 'error', alerts: 0 });
  await expect(run({ ...harness.deps, alerts: dyingSink(when) }, base + 1_000)).rejects.toThrow('SIGKILL');
  await fx.control.clearFaults();
  expect(await run(harness.deps, base + 1_000)).toMatchObject({ status: 'ok' });
}

it('killed after the enqueue: the re-run that succeeds announces the recovery', async () => {
  await failTwiceDyingAt('after', fx.sim.clock.now() + 1_000_000);
  expect(await deliveredKinds()).toEqual(['source_health', 'source_recovered']);
});

it('killed before the enqueue: the next poll enqueues the pending alert, then the recovery', async () => {
  await failTwiceDyingAt('before', fx.sim.clock.now() + 2_000_000);
  expect(await deliveredKinds()).toEqual(['source_health', 'source_recovered']);
});
