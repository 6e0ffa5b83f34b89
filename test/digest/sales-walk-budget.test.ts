/**
 * The digest's sales walk (several pages) runs inside the budget's walk reservation, wired by the
 * runtime as the poller's walks are: a full minute window mid-walk is waited out instead of
 * deferring the digest and fetching page 1 again, and pages thrown away are counted as wasted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestDepsOf } from '../../src/app/job-deps.ts';
import { Runtime } from '../../src/app/runtime.ts';
import { fetchDigestSales } from '../../src/digest/gather.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { parsePlan } from '../../src/sim/index.ts';
import { acceleratedClock } from '../../src/util/clock.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { useSimulator } from '../helpers/sim.ts';
import { parseOrThrow } from '../poll/engine-harness.ts';

const prefix = testPrefix('digest-walk');
testRedis(prefix);
const START = Date.UTC(2026, 10, 10, 12);
const DAY = '2026-11-09';
let runtime: Runtime;

const fx = useSimulator({
  seed: 11,
  startAt: new Date(START).toISOString(),
  speed: 0,
  books: 40,
  key: 'sk_walk_tight_0123456789abcdef',
  workspace: 'tight',
  plan: 'custom:100000:100000000',
  otherKeys: [
    { key: 'sk_walk_month_0123456789abcdef', workspace: 'month', plan: parsePlan('custom:100000:100000000') },
  ],
});

beforeAll(async () => {
  const workspace = (id: string, plan: string) => ({
    id,
    baseUrl: fx.url,
    apiKey: `sk_walk_${id}_0123456789abcdef`,
    plan,
    sales: { marketplaces: ['US'] },
  });
  const config = parseOrThrow({
    redis: { url: redisUrl(), prefix },
    // Our budget: two requests a minute (tight), or two this month less the reserve (month).
    workspaces: [workspace('tight', 'custom:2:1000000'), workspace('month', 'custom:1000:2')],
  });
  // 1000×: the 61 s minute window is 61 ms of real time.
  const clock = acceleratedClock(START, 1000);
  runtime = new Runtime({ config, logger: silentLogger(), version: 'test', notifiers: new Map(), clock });
  await runtime.connect();
});

afterAll(async () => {
  await runtime?.close();
});

function fetchSales(workspace: string) {
  const deps = digestDepsOf(runtime, { sendMail: () => Promise.reject(new Error('no email here')) });
  const ws = runtime.config.workspaces.find((w) => w.id === workspace);
  if (ws === undefined) throw new Error(`no workspace ${workspace}`);
  return fetchDigestSales(
    { ...deps, client: deps.clientFor(workspace) },
    ws,
    DAY,
    new AbortController().signal,
  );
}

function wasted(text: string, workspace: string): number {
  const line = text
    .split('\n')
    .find((l) => l.startsWith('shelfwatch_api_requests_wasted_total{') && l.includes(`"${workspace}"`));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

describe('the digest sales walk and the budget', () => {
  it('a walk longer than the minute window waits for it and fetches each page once', async () => {
    const seq = await fx.control.lastSeq();
    const sales = await fetchSales('tight');
    expect(sales.status).toBe('ok');
    const pages = (await fx.control.requestsSince(seq)).filter((r) => r.path === '/v1/sales');
    expect(pages.length).toBeGreaterThan(2);
    if (sales.status === 'ok') expect(sales.requests).toBe(pages.length);
    expect((await runtime.budget.usage('tight')).monthUsed).toBe(pages.length);
  });

  it('a walk cut by the month ceiling counts the pages it threw away as wasted', async () => {
    const seq = await fx.control.lastSeq();
    await expect(fetchSales('month')).rejects.toMatchObject({ name: 'DigestDeferredError' });
    const sent = (await fx.control.requestsSince(seq)).filter((r) => r.path === '/v1/sales').length;
    expect(sent).toBeGreaterThan(0);
    expect(wasted(await runtime.metrics.text(), 'month')).toBe(sent);
  });
});
