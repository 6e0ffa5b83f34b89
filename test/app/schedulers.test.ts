import { type Job, Queue, Worker } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { type DesiredScheduler, reconcileSchedulers } from '../../src/jobs/schedulers.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { waitFor } from '../helpers/wait.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
type Data = { targetId: string };

const prefix = testPrefix('schedulers');
const redis = testRedis(prefix);

/** Resolves with `promise`, or rejects after `ms` saying what did not happen. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

function setUp(name: string) {
  const queue = new Queue<Data>(name, { connection: redis, prefix });
  afterAll(() => queue.close());
  const reconcile = (desired: DesiredScheduler<Data>[]) =>
    reconcileSchedulers<Data>({
      queue,
      redis,
      lockKey: `${prefix}:${name}-lock`,
      desired,
      jobName: 'poll',
      jobOptions: { removeOnComplete: { count: 10 } },
      logger: silentLogger(),
    });
  const scheduler = async (id: string) => {
    const found = await queue.getJobScheduler(id);
    if (found == null) throw new Error(`no scheduler ${id}`);
    return found;
  };
  return { queue, reconcile, scheduler };
}

const every = (schedulerId: string, ms: number, firstRunDelayMs = 0): DesiredScheduler<Data> => ({
  schedulerId,
  repeat: { every: ms, firstRunDelayMs },
  data: { targetId: schedulerId },
});

describe('reconcileSchedulers on a real BullMQ queue', () => {
  it('restarts a scheduler whose next job is gone (a write refused while Redis was full), and only that one', async () => {
    const { queue, reconcile, scheduler } = setUp('stopped');
    const wanted = [every('t1', HOUR, HOUR), every('t2', HOUR, HOUR)];
    expect(await reconcile(wanted)).toMatchObject({ created: 2 });
    const lost = await scheduler('t1');
    // What a refused updateJobScheduler leaves: the scheduler, and no job at its `next`.
    const jobId = `repeat:t1:${lost.next}`;
    expect(await queue.getJob(jobId)).toBeDefined();
    // (BullMQ refuses to remove a scheduler's job: taken out of Redis by hand.)
    expect(await redis.zrem(queue.keys.delayed ?? '', jobId)).toBe(1);
    await redis.del(queue.toKey(jobId));
    expect(await reconcile(wanted)).toMatchObject({ created: 0, updated: 1, unchanged: 1, removed: 0 });
    const restarted = await scheduler('t1');
    const pending = await queue.getRanges(['delayed', 'waiting'], 0, -1);
    expect(pending).toContain(`repeat:t1:${restarted.next}`);
    expect(pending).toContain(`repeat:t2:${(await scheduler('t2')).next}`);
    expect(pending).toHaveLength(2);
    // Nothing lost any more: the next reconcile leaves both alone.
    expect(await reconcile(wanted)).toMatchObject({ updated: 0, unchanged: 2 });
  });

  it('keeps the phase of a scheduler whose cadence changes, and leaves one within the band alone', async () => {
    const { queue, reconcile, scheduler } = setUp('phase');
    expect(await reconcile([every('t1', HOUR)])).toMatchObject({ created: 1, ranHere: true });
    // Let the first iteration run, so the scheduler has a last run and the next one an hour later.
    const worker = new Worker<Data>('phase', async () => {}, { connection: redis, prefix });
    const completed = new Promise<Job<Data>>((resolve) => worker.once('completed', resolve));
    const first = await within(completed, 10_000, 'the first iteration completed');
    await worker.close();
    const lastRun = first.timestamp + (first.opts.delay ?? 0);
    const before = await scheduler('t1');
    expect(before).toMatchObject({ every: HOUR, iterationCount: 2 });
    expect(before.next).toBe(lastRun + HOUR);

    // 90 min: the next run is the last + 90 min, after the pending one; not now + < 5 min.
    const changedAt = Date.now();
    expect(await reconcile([every('t1', 90 * MIN, 60_000)])).toMatchObject({ updated: 1, unchanged: 0 });
    const longer = await scheduler('t1');
    expect(longer).toMatchObject({ every: 90 * MIN, next: lastRun + 90 * MIN });
    expect(longer.next).toBeGreaterThanOrEqual(before.next ?? Number.NaN);
    expect(longer.next).toBeGreaterThan(changedAt + 5 * MIN);
    // The offset follows the new phase (BullMQ aligns a late catch-up run to it).
    expect(longer.offset).toBe((lastRun + 90 * MIN) % (90 * MIN));
    // One pending iteration, at that time: the one at the old cadence was dropped.
    const delayed = await queue.getDelayed();
    expect(delayed.map((job) => job.timestamp + (job.opts.delay ?? 0))).toEqual([lastRun + 90 * MIN]);

    // 87 min: 90 min is 3.4% slower than the plan, inside the band: untouched.
    expect(await reconcile([every('t1', 87 * MIN, 60_000)])).toMatchObject({ updated: 0, unchanged: 1 });
    expect(await scheduler('t1')).toMatchObject({ every: 90 * MIN, next: lastRun + 90 * MIN });

    // 30 min: shorter, not yet due (the first run was moments ago): last run + 30 min.
    expect(await reconcile([every('t1', 30 * MIN, 60_000)])).toMatchObject({ updated: 1 });
    expect(await scheduler('t1')).toMatchObject({ every: 30 * MIN, next: lastRun + 30 * MIN });
    expect(await queue.getDelayedCount()).toBe(1);
  });

  it('leaves a cadence change while a run is due, says when to retry, and makes it right after that run', async () => {
    const { reconcile, scheduler } = setUp('due');
    // A 10-minute cadence whose run is due in about a second when the new cadence is planned.
    await reconcile([every('t3', 10 * MIN, 1_200)]);
    const due = await scheduler('t3');
    const deferred = await reconcile([every('t3', 30_000, 60_000)]);
    expect(deferred).toMatchObject({
      updated: 0,
      unchanged: 1,
      deferred: 1,
      retryAtMs: (due.next ?? 0) + 1_000,
    });
    expect(await scheduler('t3')).toMatchObject({ every: 10 * MIN, next: due.next });
    // The due run starts and completes; BullMQ moves `next` 10 minutes on.
    const worker = new Worker<Data>('due', async () => {}, { connection: redis, prefix });
    const completed = new Promise<Job<Data>>((resolve) => worker.once('completed', resolve));
    const ran = await within(completed, 10_000, 'the due run completed');
    await worker.close();
    const lastRun = ran.timestamp + (ran.opts.delay ?? 0);
    expect((await scheduler('t3')).next).toBe(lastRun + 10 * MIN);
    // At the retry time, the change is made from that run: 30 s after it, not 10 minutes.
    await waitFor('the retry time', () => Date.now() >= (deferred.retryAtMs ?? 0), 5_000, 50);
    expect(await reconcile([every('t3', 30_000, 60_000)])).toMatchObject({
      updated: 1,
      deferred: 0,
      retryAtMs: null,
    });
    expect(await scheduler('t3')).toMatchObject({ every: 30_000, next: lastRun + 30_000 });
  });

  it('keeps the pending first run of a scheduler that has not run yet', async () => {
    const { reconcile, scheduler } = setUp('first-run');
    await reconcile([every('t2', HOUR, 4 * MIN)]);
    const pending = await scheduler('t2');
    expect(await reconcile([every('t2', 3 * HOUR, 30_000)])).toMatchObject({ updated: 1 });
    expect(await scheduler('t2')).toMatchObject({ every: 3 * HOUR, next: pending.next });
  });

  it('creates and removes many schedulers a few at a time, and counts each once', async () => {
    const { queue, reconcile } = setUp('many');
    const desired = Array.from({ length: 300 }, (_, i) => every(`m${i}`, HOUR + i * 1_000, 60_000));
    expect(await reconcile(desired)).toEqual({
      created: 300,
      updated: 0,
      removed: 0,
      unchanged: 0,
      ranHere: true,
      deferred: 0,
      retryAtMs: null,
    });
    expect(await queue.getJobSchedulersCount()).toBe(300);
    expect(await reconcile(desired.slice(0, 100))).toEqual({
      created: 0,
      updated: 0,
      removed: 200,
      unchanged: 100,
      ranHere: true,
      deferred: 0,
      retryAtMs: null,
    });
    expect(await queue.getJobSchedulersCount()).toBe(100);
  });
});
