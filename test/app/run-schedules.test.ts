/**
 * What `run` schedules (startWorkers, the real workers): the daily digest goes out from its own
 * scheduler through real SMTP, and schedulers that vanish from Redis come back within the check
 * interval while readiness fails.
 */
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Runtime } from '../../src/app/runtime.ts';
import { type StartedWorkers, startWorkers } from '../../src/app/start.ts';
import { digestDay } from '../../src/digest/dates.ts';
import { type DigestJobData, nextFireTimes } from '../../src/digest/schedule.ts';
import { DIGEST_QUEUE } from '../../src/jobs/queues.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { Shutdown } from '../../src/ops/shutdown.ts';
import type { RunningSimulator } from '../../src/sim/index.ts';
import { type SmtpReceiver, startSmtpReceiver } from '../../src/tools/receivers/smtp.ts';
import { startOneBookSim } from '../helpers/one-book-sim.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { parseOrThrow } from '../poll/engine-harness.ts';

const KEY = 'sk_run_schedules_0123456789';
const TZ = 'Europe/Berlin';
const prefix = testPrefix('run-schedules');
const redis = testRedis(prefix);
let sim: RunningSimulator;
let capture: SmtpReceiver;
let runtime: Runtime;
let shutdown: Shutdown;
let started: StartedWorkers;
let digestQueue: Queue<DigestJobData>;

beforeAll(async () => {
  capture = await startSmtpReceiver();
  const world = await startOneBookSim(KEY, 21);
  sim = world.sim;
  const config = parseOrThrow({
    redis: { url: redisUrl(), prefix },
    workspaces: [world.workspace({ timeZone: TZ })],
    channels: [
      { id: 'mail', type: 'email', smtpUrl: capture.url, from: 'digest@sw.test', to: ['p@acme.test'] },
    ],
    digest: { time: '08:00', recipients: [{ workspace: 'ws', channel: 'mail', timeZone: TZ }] },
  });
  runtime = new Runtime({ config, logger: silentLogger(), version: 'test' });
  await runtime.connect();
  shutdown = new Shutdown(silentLogger());
  shutdown.add('runtime', () => runtime.close());
  started = await startWorkers(runtime, shutdown, { scheduleCheckEveryMs: 200 });
  digestQueue = new Queue<DigestJobData>(DIGEST_QUEUE, { connection: redis, prefix });
}, 30_000);

afterAll(async () => {
  await digestQueue?.close();
  await shutdown?.run(5_000);
  await sim?.close();
  await capture?.stop();
});

describe('run schedules the digest', () => {
  it('reconciles a digest scheduler at start, and its job sends the digest through SMTP', async () => {
    const schedulers = await digestQueue.getJobSchedulers(0, -1);
    expect(schedulers.map((s) => [s.key, s.pattern, s.tz])).toEqual([['digest.ws.mail', '0 8 * * *', TZ]]);
    const due = nextFireTimes({ pattern: '0 8 * * *', tz: TZ }, Date.now(), 1)[0] ?? Number.NaN;
    expect(schedulers[0]?.next).toBe(due);
    // Its job waits for 08:00; bring it forward rather than wait a day. The worker takes it from there.
    const job = await digestQueue.getJob(`repeat:digest.ws.mail:${due}`);
    expect(job).toBeDefined();
    await job?.promote();
    const [message] = await capture.waitForMessages(1, 20_000);
    expect(message?.to).toEqual(['p@acme.test']);
    await expect.poll(async () => (await job?.getState()) ?? '', { timeout: 5_000 }).toBe('completed');
    const done = await digestQueue.getJob(job?.id ?? '');
    // The digest of the day it was due, not of the day the job was created.
    expect(done?.returnvalue).toMatchObject({ status: 'sent', kind: 'email', day: digestDay(due, TZ) });
  }, 30_000);
});

describe('schedulers that vanish from Redis', () => {
  it('fail readiness and are reconciled again within the check interval', async () => {
    await started.schedules.ready();
    // What a FLUSHALL does to them (this Redis is shared by other test files: only this prefix).
    const keys = await redis.keys(`${prefix}:*:repeat*`);
    expect(keys.length).toBeGreaterThan(0);
    await redis.del(...keys);
    const targets = runtime.registry.all().length;
    await expect(started.schedules.ready()).rejects.toThrow(
      `0 of ${targets} poll schedulers, 0 of 1 digest schedulers`,
    );
    await expect
      .poll(() => started.schedules.ready().then(() => 'ready'), { timeout: 10_000, interval: 100 })
      .toBe('ready');
    expect(await runtime.pollQueue.getJobSchedulersCount()).toBe(targets);
    expect(await digestQueue.getJobSchedulersCount()).toBe(1);
  }, 20_000);
});
