import { expect, it } from 'vitest';
import { CapturingNotifier, startCapturedRuntime } from '../deliver/pipeline-harness.ts';
import { stopAfterAll } from '../helpers/cleanup.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { simForTest } from '../helpers/sim.ts';
import { parseOrThrow } from '../poll/engine-harness.ts';

const prefix = testPrefix('metrics');
testRedis(prefix);
const defer = stopAfterAll();

it('a running process counts API requests, polls, alerts and deliveries in /metrics', async () => {
  const {
    url,
    control,
    campaign: firstCampaign,
  } = await simForTest({
    seed: 12,
    books: 1,
    key: 'sk_metrics_0123456789',
    workspace: 'ws',
    plan: 'custom:600:100000',
  });
  const campaign = firstCampaign();
  const config = parseOrThrow({
    redis: { url: redisUrl(), prefix },
    workspaces: [
      {
        id: 'ws',
        baseUrl: url,
        apiKey: 'sk_metrics_0123456789',
        campaigns: [{ id: campaign.campaign_id ?? '' }],
        sales: false,
        cadence: { reviews: '1s' },
      },
    ],
    rules: [{ id: 'new-review', kind: 'review_new' }],
    channels: [{ id: 'capture', type: 'log' }],
  });
  const capture = new CapturingNotifier('capture');
  const { runtime, stop } = await startCapturedRuntime(config, capture);
  defer(stop);

  const deadline = Date.now() + 20_000;
  while (!(await runtime.metrics.text()).includes('outcome="ok"')) {
    if (Date.now() > deadline) throw new Error('no ok poll counted');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await control.event({
    type: 'review',
    campaign_id: campaign.campaign_id,
    platform: 'amazon',
    rating: 5,
    body: 'Great',
    reviewer: 'R',
  });
  await capture.waitForAlerts(1, 20_000);
  // The delivery is counted once the flush job returns, just after the channel confirmed.
  let text = await runtime.metrics.text();
  while (!text.includes('outcome="sent"')) {
    if (Date.now() > deadline) throw new Error('no delivery counted');
    await new Promise((resolve) => setTimeout(resolve, 100));
    text = await runtime.metrics.text();
  }
  expect(text).toMatch(
    /shelfwatch_api_requests_total\{[^}]*endpoint="GET \/v1\/arc\/reviews"[^}]*status="200"[^}]*\} [1-9]/,
  );
  expect(text).toMatch(/shelfwatch_polls_total\{[^}]*kind="reviews"[^}]*outcome="ok"[^}]*\} [1-9]/);
  expect(text).toMatch(/shelfwatch_alerts_total\{kind="review_new"\} 1/);
  expect(text).toMatch(/shelfwatch_deliveries_total\{channel="capture",outcome="sent"\} [1-9]/);
  expect(text).toMatch(/shelfwatch_budget_month_used\{workspace="ws"\} [1-9]/);
  expect(text).toMatch(/shelfwatch_workers_running 3/);
  expect(text).toContain('shelfwatch_queue_jobs{queue="poll"');
}, 40_000);
