/** The thin worker file: a digest job on a real BullMQ queue, sent through a real SMTP server. */
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSmtpPool, type SmtpPool } from '../../src/channels/smtp-pool.ts';
import { digestDay } from '../../src/digest/dates.ts';
import type { DigestJobData } from '../../src/digest/schedule.ts';
import { DIGEST_QUEUE } from '../../src/jobs/queues.ts';
import { type SmtpReceiver, startSmtpReceiver } from '../../src/tools/receivers/smtp.ts';
import { startDigestWorker } from '../../workers/digest.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { type Scenario, startScenario, WORKSPACE } from './sim-scenario.ts';

const prefix = testPrefix('digest-worker');
const redis = testRedis(prefix);
const shutdown = new AbortController();
let capture: SmtpReceiver;
let pool: SmtpPool;
let s: Scenario;
let queue: Queue<DigestJobData>;
let worker: ReturnType<typeof startDigestWorker>;

beforeAll(async () => {
  capture = await startSmtpReceiver();
  pool = createSmtpPool({ rateLimit: 0 });
  // The job's fire time is real time (BullMQ's), so the simulator stands at the real now.
  s = await startScenario({
    startAt: new Date().toISOString(),
    timeZone: 'Europe/Berlin',
    redis,
    prefix,
    channels: [
      {
        id: 'mail',
        type: 'email',
        smtpUrl: capture.url,
        from: 'digest@shelfwatch.test',
        to: ['p@acme.test'],
      },
    ],
    recipients: [{ workspace: WORKSPACE, channel: 'mail' }],
    smtp: pool,
  });
  await s.pollAll();
  queue = new Queue<DigestJobData>(DIGEST_QUEUE, { connection: redis, prefix });
  worker = startDigestWorker({
    connection: redis,
    prefix,
    deps: s.deps,
    clock: s.sim.clock,
    shutdownSignal: shutdown.signal,
  });
});

afterAll(async () => {
  shutdown.abort();
  await worker?.close();
  await queue?.close();
  await s?.close();
  await pool?.closeAll();
  await capture?.stop();
});

describe('digest worker', () => {
  it('parks a job the budget cannot serve yet, without spending an attempt, then sends it once', async () => {
    await s.deps.budget.pauseUntil(WORKSPACE, s.sim.clock.now() + 1_500, 'rate_limited');
    const job = await queue.add('digest', { workspace: WORKSPACE, channel: 'mail' }, { attempts: 3 });
    await expect.poll(() => job.getState(), { timeout: 5_000, interval: 50 }).toBe('delayed');
    // The frozen simulator clock does not move: lift the pause so the delayed job can go.
    await s.deps.budget.resume(WORKSPACE);
    await expect.poll(() => job.getState(), { timeout: 10_000, interval: 50 }).toBe('completed');
    const done = await queue.getJob(job.id ?? '');
    expect(done?.returnvalue).toMatchObject({
      status: 'sent',
      day: digestDay(Date.now(), 'Europe/Berlin'),
      kind: 'email',
    });
    // Two runs, one attempt: the parked run did not count as one.
    expect([done?.attemptsStarted, done?.attemptsMade]).toEqual([2, 1]);
    expect(capture.messages).toHaveLength(1);

    const again = await queue.add('digest', { workspace: WORKSPACE, channel: 'mail' });
    await expect.poll(() => again.getState(), { timeout: 5_000, interval: 50 }).toBe('completed');
    expect((await queue.getJob(again.id ?? ''))?.returnvalue).toMatchObject({ status: 'duplicate' });
    expect(capture.messages).toHaveLength(1);
  });
});
