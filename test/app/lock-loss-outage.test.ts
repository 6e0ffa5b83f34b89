/**
 * A Redis outage longer than a job's lock (shortened to 1 s here) while the job runs: BullMQ then
 * reports the lost lock (renewal, completion), and the process logs one warning and one recovery
 * line for the outage, no error line per job.
 */
import { Queue, Worker } from 'bullmq';
import { afterAll, expect, it } from 'vitest';
import { createRedisConnection, watchRedisConnection } from '../../src/app/redis-connection.ts';
import { logWorkerErrors } from '../../src/app/start.ts';
import { RestartableRedis } from '../chaos/redis-aof.ts';
import { capturingLogger } from '../helpers/log-lines.ts';
import { waitFor } from '../helpers/wait.ts';

const releases: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const release of releases.reverse()) await release();
});

it('an outage past the job lock: one warning, one recovery line, lost locks at debug', async () => {
  const redis = await RestartableRedis.create();
  releases.push(() => redis.dispose());
  const connection = createRedisConnection({ url: redis.url, cluster: false });
  releases.push(() => connection.disconnect());
  const { logger, lines } = capturingLogger();
  const errorsMatching = (pattern: RegExp) =>
    lines.filter((l) => pattern.test((l as { err?: { message?: string } }).err?.message ?? '')).length;
  logger.level = 'debug';
  const watch = watchRedisConnection(connection, logger);
  releases.push(() => watch.stop());
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let started = false;
  const worker = new Worker(
    'lock-loss',
    async () => {
      started = true;
      await held;
    },
    { connection, prefix: '{lock-loss}', lockDuration: 1_000, stalledInterval: 60_000 },
  );
  logWorkerErrors(logger, 'lock-loss', worker, watch);
  releases.push(() => worker.close(true));
  const queue = new Queue('lock-loss', { connection, prefix: '{lock-loss}' });
  queue.on('error', () => {});
  releases.push(() => queue.close());
  await queue.add('job', {});
  await waitFor('the job to start', async () => started, 10_000);

  await redis.restart('SIGKILL', 3_000);
  await waitFor('recovery', async () => lines.some((l) => l.msg === 'redis connection restored'), 15_000);
  await waitFor('the lost lock', async () => errorsMatching(/^could not renew lock/) > 0, 10_000);
  release();
  await waitFor('the finish refused', async () => errorsMatching(/^Missing lock for job/) > 0, 10_000);
  expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  expect(lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([
    expect.stringMatching(/^redis connection lost/),
  ]);
  expect(lines.filter((l) => l.msg === 'redis connection restored')).toHaveLength(1);
}, 60_000);
