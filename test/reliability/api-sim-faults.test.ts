/**
 * Every fault the simulator can inject, on every poll target, through the real client and poll
 * processor: a fault is an error outcome with the baseline kept (or, for an extra field, plain
 * data), and none of them ever produces a change alert, then or at the next good answer.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TargetKind } from '../../src/model/observation.ts';
import type { SimFaultInput } from '../../src/sim/control-schemas.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { useSimulator } from '../helpers/sim.ts';
import { CapturingSink, createHarness, type Harness, parseOrThrow } from '../poll/engine-harness.ts';
import { CHANGE_KINDS } from './fixtures/api-payloads.ts';

const KEY = 'sk_rel_faults_0123456789';
const prefix = testPrefix('rel-faults');
const redis = testRedis(prefix);
let harness: Harness;
let sink: CapturingSink;
const targets: { kind: TargetKind; id: string; path: string; field: string }[] = [];

const fx = useSimulator({
  seed: 31,
  books: 2,
  speed: 0,
  key: KEY,
  workspace: 'ws-faults',
  plan: 'custom:100000:10000000',
});

beforeAll(async () => {
  // Frozen clock: the world does not move between polls, so any alert would be false.
  const campaign = fx.campaign();
  const asin = campaign.asin;
  targets.push(
    { kind: 'book', id: `book/${asin}/US`, path: `/v1/books/${asin}`, field: 'bsr.rank' },
    {
      kind: 'keywords',
      id: `keywords/${asin}/US`,
      path: `/v1/books/${asin}/keywords`,
      field: 'traffic_share',
    },
    {
      kind: 'reviews',
      id: `reviews/${campaign.campaign_id}`,
      path: '/v1/arc/reviews',
      field: 'published_at',
    },
    { kind: 'sales', id: 'sales/US', path: '/v1/sales', field: 'units' },
  );
  const config = parseOrThrow({
    redis: { prefix },
    workspaces: [
      {
        id: 'ws-faults',
        baseUrl: fx.url,
        apiKey: KEY,
        plan: 'custom:100000:10000000',
        books: [{ asin, marketplaces: ['US'], keywords: { top: 50 } }],
        campaigns: [{ id: campaign.campaign_id }],
        sales: { marketplaces: ['US'] },
      },
    ],
    rules: [
      { id: 'kw', kind: 'keyword_rank_drop', positionsLost: 1, sendResolved: true },
      { id: 'bsr', kind: 'bsr_worsened' },
      { id: 'bsr-gone', kind: 'bsr_removed' },
      { id: 'new-review', kind: 'review_new' },
      { id: 'gone-review', kind: 'review_removed' },
      { id: 'royalty', kind: 'royalty_change', minAbsolute: 0, percent: 1, direction: 'both' },
      { id: 'revision', kind: 'sales_revision' },
    ],
  });
  sink = new CapturingSink();
  harness = createHarness({ sim: fx.sim, redis, prefix, config, sink });
  for (const target of targets) {
    expect(await harness.poll(target.id)).toMatchObject({ status: 'ok', baseline: true });
    // A condition already true at the baseline (a rank above its median) fires on the
    // second poll and then stays firing: poll until the target is quiet before faults start.
    let quiet = false;
    for (let i = 0; i < 3 && !quiet; i += 1) {
      const result = await harness.poll(target.id);
      expect(result).toMatchObject({ status: 'ok' });
      quiet = result.status === 'ok' && result.alerts === 0;
    }
    expect(quiet, `${target.id} still alerting on an unchanged world`).toBe(true);
  }
});

afterAll(async () => {
  await harness?.close();
});

type FaultCase = [string, (field: string) => SimFaultInput, 'error' | 'ok'];

const FAULTS: FaultCase[] = [
  ['a missing field', (field) => ({ kind: 'drop_field', field, count: 1 }), 'error'],
  ['an extra field everywhere', () => ({ kind: 'extra_field', count: 1 }), 'ok'],
  ['truncated JSON', () => ({ kind: 'malformed_json', count: 2 }), 'error'],
  ['a proxy HTML page', () => ({ kind: 'html', status: 502, count: 2 }), 'error'],
  ['a 500', () => ({ kind: 'status', status: 500, count: 2 }), 'error'],
  ['a reset connection', () => ({ kind: 'reset_connection', count: 2 }), 'error'],
];

const CASES = [
  ...FAULTS.flatMap(([name, fault, expected]) =>
    ['book', 'keywords', 'reviews', 'sales'].map(
      (kind) => [`${kind}: ${name}`, kind, fault, expected] as const,
    ),
  ),
  // The harness client waits 2 s for headers (undici's timers are coarse: well past 2 s here),
  // twice with its one quick retry; one target is enough.
  [
    'book: an answer slower than the timeout',
    'book',
    (): SimFaultInput => ({ kind: 'slow', delayMs: 5_000, count: 2 }),
    'error',
  ] as const,
];

it.each(CASES)(
  '%s',
  async (_name, kind, fault, expected) => {
    const target = targets.find((t) => t.kind === kind);
    if (target === undefined) throw new Error(`no ${kind} target`);
    const ref = { workspace: 'ws-faults', kind: target.kind, id: target.id };
    await fx.control.clearFaults();
    await fx.control.fault({ ...fault(target.field), pathPrefix: target.path });
    const before = await harness.store.get(ref);
    const alertsBefore = sink.alerts.length;
    const result = await harness.poll(target.id);
    await fx.control.clearFaults();
    expect(result.status).toBe(expected);
    if (expected === 'error') expect(await harness.store.get(ref)).toEqual(before);
    expect(await harness.poll(target.id)).toMatchObject({ status: 'ok' });
    expect(sink.alerts.slice(alertsBefore).filter((a) => CHANGE_KINDS.has(a.kind))).toEqual([]);
  },
  20_000,
);
