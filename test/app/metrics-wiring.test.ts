import { expect, it } from 'vitest';
import { capturedRuntimeForTest } from '../deliver/pipeline-harness.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { simForTest } from '../helpers/sim.ts';
import { waitFor } from '../helpers/wait.ts';
import { parseOrThrow } from '../poll/engine-harness.ts';

const prefix = testPrefix('metrics');
testRedis(prefix);

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
  const { runtime, capture } = await capturedRuntimeForTest(config);

  await waitFor(
    'an ok poll counted',
    async () => (await runtime.metrics.text()).includes('outcome="ok"'),
    20_000,
    200,
  );
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
  const text = await waitFor(
    'a delivery counted',
    async () => {
      const metrics = await runtime.metrics.text();
      return metrics.includes('outcome="sent"') ? metrics : undefined;
    },
    20_000,
    100,
  );
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
