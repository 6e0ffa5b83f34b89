import type { Cluster } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Runtime } from '../../src/app/runtime.ts';
import type { Shutdown } from '../../src/ops/shutdown.ts';
import { type PrivateCluster, startPrivateCluster } from '../../src/tools/private-cluster.ts';
import { CapturingNotifier } from '../deliver/pipeline-harness.ts';
import { useSimulator } from '../helpers/sim.ts';
import { parseOrThrow } from '../poll/engine-harness.ts';
import { startCapturing, stopAll } from './harness.ts';

const KEY = 'sk_cluster_test_0123456789';
const PREFIX = '{swcluster}';
// Kept as a promise: should beforeAll time out while the cluster is still starting, afterAll
// still stops the nodes once they are up instead of leaving them running.
let clusterStarting: Promise<PrivateCluster> | undefined;
let cluster: PrivateCluster;
let runtime: Runtime;
let shutdown: Shutdown;
let campaignId = '';
const capture = new CapturingNotifier('capture');

const fx = useSimulator({
  seed: 9,
  books: 2,
  key: KEY,
  workspace: 'ws',
  plan: 'custom:600:100000',
});

beforeAll(async () => {
  clusterStarting = startPrivateCluster(3);
  cluster = await clusterStarting;
  const campaign = fx.campaign();
  campaignId = campaign.campaign_id;
  const config = parseOrThrow({
    redis: { url: cluster.url, prefix: PREFIX, cluster: true },
    workspaces: [
      {
        id: 'ws',
        baseUrl: fx.url,
        apiKey: KEY,
        plan: 'custom:600:100000',
        campaigns: [{ id: campaignId }],
        sales: false,
        cadence: { reviews: '1s' },
      },
    ],
    rules: [{ id: 'new-review', kind: 'review_new' }],
    channels: [{ id: 'capture', type: 'log' }],
  });
  ({ runtime, shutdown } = await startCapturing(config, capture));
}, 60_000);

afterAll(() => stopAll(shutdown, clusterStarting));

it('the normal scenario runs on a 3-master Redis Cluster with a hash-tagged prefix', async () => {
  const ref = { workspace: 'ws', kind: 'reviews' as const, id: `reviews/${campaignId}` };
  const deadline = Date.now() + 20_000;
  while ((await runtime.store.get(ref)) === undefined) {
    if (Date.now() > deadline) throw new Error('no baseline poll on the cluster');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await fx.control.event({
    type: 'review',
    campaign_id: campaignId,
    platform: 'audible',
    rating: 4,
    body: 'Loved it',
    reviewer: 'Cluster Reader',
  });
  await capture.waitForAlerts(1, 20_000);
  expect(capture.messages[0]?.message.alerts[0]?.kind).toBe('review_new');

  // Every key of the prefix — BullMQ's, the budget's, snapshots, groups, dedup — sits in one slot.
  const redis = runtime.redis as Cluster;
  const slots = new Set<number>();
  for (const node of redis.nodes('master')) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `${PREFIX}*`, 'COUNT', 500);
      cursor = next;
      for (const key of keys) slots.add(Number(await node.call('CLUSTER', 'KEYSLOT', key)));
    } while (cursor !== '0');
  }
  expect(slots.size).toBe(1);
}, 60_000);
