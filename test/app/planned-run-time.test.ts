/** A scheduler's job carries its planned run time: polls and digests are stamped when they were due. */
import { type Job, Queue, Worker } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { scheduledTimeOf } from '../../src/jobs/poll-job.ts';
import { plannedRunTimeOf } from '../../src/jobs/schedulers.ts';
import type { PollJobData } from '../../src/poll/processor.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';

const prefix = testPrefix('planned-run');
const redis = testRedis(prefix);

/** Runs a scheduler until `runs` of its jobs have started; returns each job with when it started. */
async function runs(
  name: string,
  repeat: { every: number } | { pattern: string },
  count: number,
): Promise<{ job: Job<PollJobData>; startedAt: number }[]> {
  const queue = new Queue<PollJobData>(name, { connection: redis, prefix });
  afterAll(() => queue.close());
  await queue.upsertJobScheduler('ws.target', repeat, {
    name: 'poll',
    data: { workspace: 'ws', targetId: 'target' },
  });
  const seen: { job: Job<PollJobData>; startedAt: number }[] = [];
  let done: () => void = () => {};
  const enough = new Promise<void>((resolve) => {
    done = resolve;
  });
  const worker = new Worker<PollJobData>(
    name,
    async (job) => {
      seen.push({ job, startedAt: Date.now() });
      if (seen.length === count) done();
    },
    { connection: redis, prefix },
  );
  const timer = setTimeout(done, 15_000);
  await enough;
  clearTimeout(timer);
  await worker.close();
  await queue.removeJobScheduler('ws.target');
  expect(seen.length).toBeGreaterThanOrEqual(count);
  return seen;
}

describe('the planned run time of a scheduler job', () => {
  it('an `every` scheduler: each poll is stamped when it was due, not when the previous one started', async () => {
    const every = 1_500;
    const seen = await runs('every', { every }, 3);
    const times = seen.map(({ job }) => scheduledTimeOf(job));
    // One cadence apart, and each at most a moment before the job started (never a cadence early).
    expect(times[2]! - times[1]!).toBe(every);
    for (const { job, startedAt } of seen.slice(1)) {
      const lag = startedAt - scheduledTimeOf(job);
      expect(lag).toBeGreaterThanOrEqual(0);
      expect(lag).toBeLessThan(every / 2);
      // What BullMQ fills in for `every` schedulers: no prevMillis, and the creation time is a cadence back.
      expect(job.opts.prevMillis).toBeUndefined();
      expect(startedAt - job.timestamp).toBeGreaterThan(every / 2);
    }
  });

  it('a cron scheduler (the digest): stamped at the cron time', async () => {
    const seen = await runs('cron', { pattern: '* * * * * *' }, 2);
    for (const { job, startedAt } of seen) {
      const planned = plannedRunTimeOf(job);
      expect(planned % 1_000).toBe(0);
      expect(startedAt - planned).toBeGreaterThanOrEqual(0);
      expect(startedAt - planned).toBeLessThan(1_000);
    }
  });

  it('a job added by hand runs when it was added', () => {
    const job = { id: '42x', repeatJobKey: undefined, timestamp: 1_000, opts: {} };
    expect(plannedRunTimeOf(job)).toBe(1_000);
  });
});
