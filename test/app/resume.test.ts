/**
 * `resume` lifts the pause and sends the polls the pause parked (moved to delayed) out again at
 * once; a scheduler's next job keeps its planned time, and other workspaces' parked polls stay.
 */
import { DelayedError, type Job, Queue, Worker } from 'bullmq';
import { afterAll, expect, it } from 'vitest';
import { resumeWorkspace } from '../../src/app/resume.ts';
import { PauseEpisodes } from '../../src/budget/pause-episode.ts';
import { RedisRequestBudget } from '../../src/budget/request-budget.ts';
import type { PollJobData } from '../../src/poll/processor.ts';
import { systemClock } from '../../src/util/clock.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { waitFor } from '../helpers/wait.ts';

const prefix = testPrefix('resume');
const redis = testRedis(prefix);
const PARK_MS = 10 * 60_000;
const queue = new Queue<PollJobData>('poll', { connection: redis, prefix });
const runs: string[] = [];
// Parks every job on its first run, as the poll worker does when the budget is paused.
const worker = new Worker<PollJobData>(
  'poll',
  async (job: Job<PollJobData>, token) => {
    runs.push(`${job.data.workspace}/${job.data.targetId}#${job.attemptsStarted}`);
    if (job.attemptsStarted > 1 || job.repeatJobKey !== undefined) return;
    await job.moveToDelayed(Date.now() + PARK_MS, token);
    throw new DelayedError();
  },
  { connection: redis.duplicate(), prefix },
);
afterAll(async () => {
  await worker.close();
  await queue.close();
});

it('promotes the workspace parked polls and nothing else', async () => {
  const budget = new RedisRequestBudget({ redis, prefix, clock: systemClock });
  const pauses = new PauseEpisodes(redis, prefix);
  await budget.pauseUntil('ws', Date.now() + PARK_MS, 'unauthorized');
  await queue.add('poll', { workspace: 'ws', targetId: 'a' });
  await queue.add('poll', { workspace: 'ws', targetId: 'b' });
  await queue.add('poll', { workspace: 'other', targetId: 'c' });
  // A scheduler: its first job runs at once, its next one waits (never started) in delayed.
  await queue.upsertJobScheduler(
    'ws-d',
    { every: PARK_MS },
    { name: 'poll', data: { workspace: 'ws', targetId: 'd' } },
  );
  await waitFor(
    'three parked polls and the next scheduled one',
    async () => (await queue.getDelayedCount()) === 4,
    10_000,
  );

  const report = await resumeWorkspace({ budget, pauses, pollQueue: queue }, 'ws');
  expect(report).toMatchObject({ lifted: { reason: 'unauthorized' }, promoted: 2 });
  await waitFor(
    'the parked polls ran again',
    async () => runs.includes('ws/a#2') && runs.includes('ws/b#2'),
    10_000,
  );
  expect(await queue.getDelayedCount()).toBe(2);
  expect(runs.filter((r) => r.startsWith('other/'))).toEqual(['other/c#1']);
  expect(runs.filter((r) => r.startsWith('ws/d'))).toEqual(['ws/d#1']);
});
