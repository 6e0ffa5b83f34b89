/**
 * Issue #11 "Done when": a key revoked mid-run alerts within one poll, with the real workers
 * (scheduler, poll and delivery queues) against the simulator, and the recovery is announced once.
 */
import { expect, it } from 'vitest';
import { resumeWorkspace } from '../../src/app/resume.ts';
import type { Alert } from '../../src/model/alert.ts';
import { capturedRuntimeForTest } from '../deliver/pipeline-harness.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { simForTest } from '../helpers/sim.ts';
import { waitFor } from '../helpers/wait.ts';
import { parseOrThrow } from './engine-harness.ts';

const KEY = 'sk_revoked_0123456789';
const PLAN = 'custom:600:100000';
const prefix = testPrefix('revoked');
testRedis(prefix);

it('a key revoked mid-run raises one workspace alert within one poll per target; recovery once', async () => {
  const { url, control, world } = await simForTest({
    seed: 13,
    books: 2,
    key: KEY,
    workspace: 'ws',
    plan: PLAN,
  });
  const books = world.books.slice(0, 2);
  const config = parseOrThrow({
    redis: { url: redisUrl(), prefix },
    workspaces: [
      {
        id: 'ws',
        baseUrl: url,
        apiKey: KEY,
        plan: PLAN,
        books: books.map((b) => ({ asin: b.asin, marketplaces: ['US'] })),
        sales: false,
        cadence: { book: '1s' },
      },
    ],
    rules: [{ id: 'health', kind: 'source_health', failures: 3 }],
    channels: [{ id: 'capture', type: 'log' }],
  });
  const { runtime, capture } = await capturedRuntimeForTest(config);

  const answered = async (status: number, since: number) =>
    (await control.requestsSince(since, '/v1/books')).filter((r) => r.status === status).length;
  await waitFor('both books polled ok', async () => (await answered(200, 0)) >= 2, 20_000);

  const revokedAt = await control.lastSeq();
  await control.revoke(KEY);
  const workspaceAlerts = (kind: Alert['kind']) =>
    capture.messages
      .flatMap((m) => m.message.alerts)
      .filter((a) => a.kind === kind && a.subject.scope === 'workspace');
  await waitFor('the pause alert', async () => workspaceAlerts('source_health').length > 0, 15_000);
  // Within one poll: at most one refused request per target went out before the alert.
  expect(await answered(401, revokedAt)).toBeGreaterThanOrEqual(1);
  expect(await answered(401, revokedAt)).toBeLessThanOrEqual(books.length);
  expect(workspaceAlerts('source_health')[0]).toMatchObject({ severity: 'critical', status: 'firing' });

  await control.addKey({ key: KEY, workspace: 'ws', plan: PLAN });
  const report = await resumeWorkspace({ ...runtime.pollDeps, pollQueue: runtime.pollQueue }, 'ws');
  expect(report.lifted).toMatchObject({ reason: 'unauthorized' });
  await waitFor('the recovery', async () => workspaceAlerts('source_recovered').length > 0, 15_000);
  expect(workspaceAlerts('source_health')).toHaveLength(1);
  expect(workspaceAlerts('source_recovered')).toHaveLength(1);
});
