import { Queue } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { localTime } from '../../src/digest/dates.ts';
import {
  type DigestJobData,
  desiredDigestSchedules,
  digestPattern,
  nextFireTimes,
} from '../../src/digest/schedule.ts';
import { reconcileDigestSchedulers } from '../../src/jobs/digest-schedulers.ts';
import { DIGEST_QUEUE } from '../../src/jobs/queues.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { parseOrThrow } from '../poll/engine-harness.ts';

const iso = (ms: number) => new Date(ms).toISOString();

function config(time: string, recipients: unknown[], enabled = true) {
  return parseOrThrow({
    workspaces: [
      {
        id: 'acme',
        baseUrl: 'http://127.0.0.1:1',
        apiKey: 'k',
        timeZone: 'Europe/Berlin',
        books: [{ asin: 'B0AAAAAAAA' }],
      },
      { id: 'beta', baseUrl: 'http://127.0.0.1:1', apiKey: 'k2', books: [{ asin: 'B0BBBBBBBB' }] },
    ],
    channels: [
      { id: 'box', type: 'outbox', dir: '/tmp/x' },
      { id: 'box-2', type: 'outbox', dir: '/tmp/y' },
    ],
    digest: { enabled, time, recipients },
  });
}

describe('digest schedule', () => {
  it('turns digest.time into a daily cron pattern', () => {
    expect(digestPattern('08:00')).toBe('0 8 * * *');
    expect(digestPattern('23:59')).toBe('59 23 * * *');
    expect(() => digestPattern('24:00')).toThrow(RangeError);
  });

  it('fires at 08:00 local on both sides of a daylight-saving change (cron-parser through BullMQ)', () => {
    const berlin = nextFireTimes({ pattern: '0 8 * * *', tz: 'Europe/Berlin' }, Date.UTC(2026, 9, 23, 12), 3);
    expect(berlin.map(iso)).toEqual([
      '2026-10-24T06:00:00.000Z',
      '2026-10-25T07:00:00.000Z',
      '2026-10-26T07:00:00.000Z',
    ]);
    const newYork = nextFireTimes({ pattern: '0 8 * * *', tz: 'America/New_York' }, Date.UTC(2026, 9, 31), 2);
    expect(newYork.map(iso)).toEqual(['2026-10-31T12:00:00.000Z', '2026-11-01T13:00:00.000Z']);
    for (const ms of berlin) expect(localTime(ms, 'Europe/Berlin')).toBe('08:00');
    const spring = nextFireTimes(
      { pattern: '30 2 * * *', tz: 'Europe/Berlin' },
      Date.UTC(2026, 2, 28, 12),
      2,
    );
    // 02:30 does not exist on 29 Mar 2026 in Berlin: the digest still goes out once that day.
    expect(spring).toHaveLength(2);
    expect(new Set(spring.map((ms) => iso(ms).slice(0, 10))).size).toBe(2);
  });

  it('wants one scheduler per recipient, in its time zone, with ids and no secrets in the job data', () => {
    const desired = desiredDigestSchedules(
      config('07:15', [
        { workspace: 'acme', channel: 'box' },
        { workspace: 'beta', channel: 'box', timeZone: 'America/New_York' },
        { workspace: 'acme', channel: 'box' },
      ]),
    );
    expect(desired).toEqual([
      {
        schedulerId: 'digest.acme.box',
        pattern: '15 7 * * *',
        tz: 'Europe/Berlin',
        data: { workspace: 'acme', channel: 'box' },
      },
      {
        schedulerId: 'digest.beta.box',
        pattern: '15 7 * * *',
        tz: 'America/New_York',
        data: { workspace: 'beta', channel: 'box' },
      },
    ]);
    expect(desiredDigestSchedules(config('07:15', [{ workspace: 'acme', channel: 'box' }], false))).toEqual(
      [],
    );
  });
});

describe('digest scheduler reconciliation (real BullMQ queue)', () => {
  const prefix = testPrefix('digest-sched');
  const redis = testRedis(prefix);
  const queue = new Queue<DigestJobData>(DIGEST_QUEUE, { connection: redis, prefix });
  afterAll(() => queue.close());
  const reconcile = (time: string, recipients: unknown[]) =>
    reconcileDigestSchedulers({
      queue,
      redis,
      lockKey: `${prefix}:digest-reconcile-lock`,
      desired: desiredDigestSchedules(config(time, recipients)),
      logger: silentLogger(),
    });

  it('creates, keeps, updates and removes schedulers to match the config', async () => {
    const two = [
      { workspace: 'acme', channel: 'box' },
      { workspace: 'beta', channel: 'box-2', timeZone: 'America/New_York' },
    ];
    expect(await reconcile('08:00', two)).toMatchObject({ created: 2, unchanged: 0, ranHere: true });
    const schedulers = await queue.getJobSchedulers(0, -1, true);
    expect(schedulers.map((sc) => [sc.key, sc.pattern, sc.tz]).sort()).toEqual([
      ['digest.acme.box', '0 8 * * *', 'Europe/Berlin'],
      ['digest.beta.box-2', '0 8 * * *', 'America/New_York'],
    ]);
    expect(schedulers.every((sc) => !sc.key.includes(':'))).toBe(true);
    // Nothing runs at once: each scheduler's first job waits for the next 08:00 local.
    expect(await queue.getWaitingCount()).toBe(0);
    const acme = schedulers.find((sc) => sc.key === 'digest.acme.box');
    expect(acme?.next).toBe(nextFireTimes({ pattern: '0 8 * * *', tz: 'Europe/Berlin' }, Date.now(), 1)[0]);
    expect(localTime(acme?.next ?? 0, 'Europe/Berlin')).toBe('08:00');

    expect(await reconcile('08:00', two)).toMatchObject({ created: 0, updated: 0, removed: 0, unchanged: 2 });
    expect(await reconcile('09:30', two)).toMatchObject({ updated: 2 });
    expect((await queue.getJobScheduler('digest.acme.box'))?.pattern).toBe('30 9 * * *');
    expect(await reconcile('09:30', [two[0]])).toMatchObject({ removed: 1, unchanged: 1 });
    expect((await queue.getJobSchedulers(0, -1)).map((sc) => sc.key)).toEqual(['digest.acme.box']);
  });
});
