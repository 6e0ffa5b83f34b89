import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Cluster } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Runtime } from '../../src/app/runtime.ts';
import { shardReachability, shardsReadiness } from '../../src/app/shard-health.ts';
import { gatherStatus } from '../../src/app/status.ts';
import { formatStatus } from '../../src/cli/status.ts';
import type { Shutdown } from '../../src/ops/shutdown.ts';
import { type PrivateCluster, startPrivateCluster } from '../../src/tools/private-cluster.ts';
import { CapturingNotifier } from '../deliver/pipeline-harness.ts';
import { shelfwatch, writeConfig } from '../helpers/cli.ts';
import { useSimulator } from '../helpers/sim.ts';
import { parseOrThrow } from '../poll/engine-harness.ts';
import { startCapturing, stopAll } from './harness.ts';

const WORKSPACES = ['ws-a', 'ws-b', 'ws-c'];
const keyOf = (ws: string) => `sk_shards_${ws}_0123456789`;
const PREFIX = '{swshards}';
let clusterStarting: Promise<PrivateCluster> | undefined;
let runtime: Runtime;
let shutdown: Shutdown;
let campaignId = '';
let raw: { redis: { url: string } & Record<string, unknown> } & Record<string, unknown>;
const capture = new CapturingNotifier('capture');

const fx = useSimulator({
  seed: 29,
  books: 1,
  key: keyOf('ws-a'),
  workspace: 'ws-a',
  plan: 'custom:600:100000',
  otherKeys: WORKSPACES.slice(1).map((ws) => ({
    key: keyOf(ws),
    workspace: ws,
    plan: { name: 'custom', perMinute: 600, perMonth: 100_000 },
  })),
});

beforeAll(async () => {
  clusterStarting = startPrivateCluster(3);
  const cluster = await clusterStarting;
  campaignId = fx.campaign().campaign_id;
  raw = {
    redis: {
      url: cluster.url,
      prefix: PREFIX,
      cluster: true,
      shards: { count: 3, pin: { '0': ['ws-a'], '1': ['ws-b'], '2': ['ws-c'] } },
    },
    workspaces: WORKSPACES.map((id) => ({
      id,
      baseUrl: fx.url,
      apiKey: keyOf(id),
      plan: 'custom:600:100000',
      campaigns: [{ id: campaignId }],
      sales: false,
      cadence: { reviews: '1s' },
    })),
    rules: [{ id: 'new-review', kind: 'review_new' }],
    channels: [{ id: 'capture', type: 'log' }],
  };
  const config = parseOrThrow(raw);
  ({ runtime, shutdown } = await startCapturing(config, capture));
}, 60_000);

afterAll(() => stopAll(shutdown, clusterStarting));

it('three shards on a 3-master Cluster: each workspace polls and alerts from its own master', async () => {
  const refs = WORKSPACES.map((ws) => ({
    workspace: ws,
    kind: 'reviews' as const,
    id: `reviews/${campaignId}`,
  }));
  const deadline = Date.now() + 30_000;
  while ((await Promise.all(refs.map((ref) => runtime.store.get(ref)))).some((s) => s === undefined)) {
    if (Date.now() > deadline) throw new Error('no baseline poll of every workspace on the cluster');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await fx.control.event({
    type: 'review',
    campaign_id: campaignId,
    platform: 'audible',
    rating: 4,
    body: 'Loved it',
    reviewer: 'Shard Reader',
  });
  await capture.waitForAlerts(3, 30_000);
  const alerted = capture.messages.flatMap((m) => m.message.alerts.map((a) => a.workspace));
  expect(alerted.sort()).toEqual(WORKSPACES);

  // Each master holds the keys of one shard (and home's deployment keys sit with shard 0).
  const redis = runtime.redis as Cluster;
  const perMaster: Record<string, Set<string>> = {};
  for (const node of redis.nodes('master')) {
    const tags = new Set<string>();
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', '{swshards*', 'COUNT', 500);
      cursor = next;
      for (const key of keys) tags.add(key.slice(0, key.indexOf('}') + 1));
    } while (cursor !== '0');
    perMaster[`${node.options.port}`] = tags;
  }
  const tagSets = Object.values(perMaster).map((tags) => [...tags].sort());
  expect(tagSets.map((tags) => tags.length)).toEqual([1, 1, 1]);
  expect(tagSets.flat().sort()).toEqual([...runtime.shardMap.prefixes].sort());
  expect((await shardReachability(runtime)).every((s) => s.reachable)).toBe(true);

  // A master down: its shard's workspaces wait and `shards show` names them; the others answer.
  const [port, tags] =
    Object.entries(perMaster).find(([, t]) => t.has(runtime.shardMap.prefixes[2] as string)) ?? [];
  const down = (await clusterStarting)?.nodes.find((node) => String(node.port) === port);
  expect(tags?.size).toBe(1);
  await down?.stop();
  const reach = await shardReachability(runtime, 1_000);
  expect(reach.map((s) => s.reachable)).toEqual([true, true, false]);
  expect(reach[2]?.workspaces).toEqual(['ws-c']);

  // `status` names the shard and its workspace, which wait; the other two are read as usual.
  const report = await gatherStatus(runtime);
  expect(report.shards.map((s) => s.reachable)).toEqual([true, true, false]);
  expect(report.waiting.map((w) => [w.workspace, w.shard])).toEqual([['ws-c', 2]]);
  expect(report.workspaces.map((ws) => ws.id)).toEqual(['ws-a', 'ws-b']);
  expect(report.workspaces.every((ws) => ws.targets[0]?.lastOutcome === 'ok')).toBe(true);
  expect(report.channels.map((c) => c.id)).toEqual(['capture']);
  const text = formatStatus(report);
  expect(text).toContain(
    `SHARD DOWN: shard 2 (${runtime.shardMap.prefixes[2]}) does not answer: its workspaces wait (ws-c)`,
  );
  expect(text).toContain('workspace ws-a');
  expect(text).not.toContain('workspace ws-c');
  // The command itself, seeded with a node that answers (the Cluster client finds the rest).
  const live = (await clusterStarting)?.nodes.find((node) => node !== down);
  const dir = mkdtempSync(join(tmpdir(), 'shelfwatch-shards-'));
  try {
    const file = writeConfig(dir, 'shards.yaml', { ...raw, redis: { ...raw.redis, url: live?.url } });
    const outcome = await shelfwatch(['status', '--config', file], {}, 40_000);
    expect(outcome.stderr).toBe('');
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toContain('SHARD DOWN: shard 2');
    expect(outcome.stdout).toContain('its workspaces wait (ws-c)');
    expect(outcome.stdout).toContain('workspace ws-b');
    expect(outcome.stdout).not.toContain('workspace ws-c');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // /readyz's reason for the same.
  await expect(shardsReadiness(runtime, 1_000)).rejects.toThrow(
    `shard 2 (${runtime.shardMap.prefixes[2]}) does not answer, 1 workspace(s) wait: ws-c`,
  );
}, 90_000);
