/**
 * kill -9 during the digest's SMTP send: the worker dies after the message reached the server but
 * before its 250 came back. Restarted, it must send the digest again within a minute (the recipient
 * lock of the dead process must not block the retry). At-least-once: a duplicate is allowed, a
 * loss is not.
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import type { DigestJobData } from '../../src/digest/schedule.ts';
import { DIGEST_QUEUE } from '../../src/jobs/queues.ts';
import { type PrivateRedis, startPrivateRedis } from '../../src/tools/private-redis.ts';
import { type SmtpReceiver, startSmtpReceiver } from '../../src/tools/receivers/smtp.ts';
import { tempDir } from '../config/helpers.ts';
import { writeConfig } from '../helpers/cli.ts';
import { startOneBookSim } from '../helpers/one-book-sim.ts';
import { type RunProcess, startRun } from '../helpers/run-process.ts';

const KEY = 'sk_digest_kill_0123456789';
const releases: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const release of releases.reverse()) await release();
});

it('a digest whose sender was killed mid-send arrives within 60 s of the restart', async () => {
  const redis: PrivateRedis = await startPrivateRedis();
  releases.push(() => redis.stop());
  const { sim, workspace } = await startOneBookSim(KEY, 11);
  releases.push(() => sim.close());
  let first: RunProcess | undefined;
  let killedAt = 0;
  const smtp: SmtpReceiver<undefined> = await startSmtpReceiver({
    parse: false,
    onMessage: async () => {
      if (killedAt !== 0 || first === undefined) return;
      // The message is in; the sender dies before the server's answer.
      killedAt = Date.now();
      await first.kill();
      throw new Error('sender gone');
    },
  });
  releases.push(() => smtp.stop());
  const prefix = '{digest-kill}';
  const file = writeConfig(tempDir(), 'run.json', {
    redis: { url: redis.url, prefix },
    server: { port: 0 },
    workspaces: [workspace({ sales: false, cadence: { book: '1h' } })],
    channels: [{ id: 'mail', type: 'email', smtpUrl: smtp.url, from: 'digest@sw.test', to: ['p@acme.test'] }],
    digest: { time: '08:00', recipients: [{ workspace: 'ws', channel: 'mail' }] },
  });
  first = startRun(file);
  releases.push(() => first?.kill() ?? Promise.resolve());
  await first.waitForLine('the first worker running', (l) => l.msg.startsWith('shelfwatch running'), 60_000);
  const producer = new Redis(redis.url, { maxRetriesPerRequest: null });
  const queue = new Queue<DigestJobData>(DIGEST_QUEUE, { connection: producer, prefix });
  releases.push(async () => {
    await queue.close();
    producer.disconnect();
  });
  await queue.add('digest', { workspace: 'ws', channel: 'mail' });
  await expect.poll(() => killedAt, { timeout: 60_000, interval: 100 }).toBeGreaterThan(0);

  const second = startRun(file);
  releases.push(() => second.kill());
  const restartedAt = Date.now();
  const [mail] = await smtp.waitForMessages(1, 90_000);
  const afterRestartMs = (mail?.receivedAt ?? Number.POSITIVE_INFINITY) - restartedAt;
  console.log(`digest resent ${(afterRestartMs / 1_000).toFixed(1)} s after the restart`);
  expect(afterRestartMs).toBeLessThanOrEqual(60_000);
  expect(await second.stop()).toBe(0);
}, 200_000);
