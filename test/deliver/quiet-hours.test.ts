import { afterAll, describe, expect, it } from 'vitest';
import { quietHoursEnd } from '../../src/deliver/quiet-hours.ts';
import type { Clock } from '../../src/util/clock.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { CapturingNotifier, makeAlert, settings, startPipeline } from './pipeline-harness.ts';

const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

describe('quietHoursEnd', () => {
  it('finds the end of a window that wraps midnight, in the window’s time zone', () => {
    const quiet = { start: '22:00', end: '07:00', timeZone: 'Europe/Berlin' };
    // 23:30 in Berlin (CET, UTC+1) on 2026-11-21 → quiet until 07:00 Berlin = 06:00Z.
    expect(quietHoursEnd(Date.parse('2026-11-21T22:30:00Z'), quiet)).toBe(Date.parse('2026-11-22T06:00:00Z'));
    expect(quietHoursEnd(Date.parse('2026-11-22T07:30:00Z'), quiet)).toBeNull();
  });

  it('keeps local times across a daylight-saving change inside the window', () => {
    const quiet = { start: '22:00', end: '07:00', timeZone: 'Europe/Berlin' };
    // The night of 24→25 Oct 2026: CEST (UTC+2) ends at 03:00 local. 07:00 local is then 06:00Z.
    expect(quietHoursEnd(Date.parse('2026-10-24T21:00:00Z'), quiet)).toBe(Date.parse('2026-10-25T06:00:00Z'));
    // The night of 28→29 Mar 2026: CET → CEST. 07:00 local is 05:00Z.
    expect(quietHoursEnd(Date.parse('2026-03-28T22:00:00Z'), quiet)).toBe(Date.parse('2026-03-29T05:00:00Z'));
  });
});

describe('quiet hours in the pipeline', () => {
  const prefix = testPrefix('quiet');
  testRedis(prefix);
  let stop: (() => Promise<void>) | undefined;
  afterAll(async () => stop?.());

  it('defers non-critical alerts to the end of the quiet hours and batches them; critical ones pass', async () => {
    // A clock 2.5 s before the end of a minute, with quiet hours ending at that minute's end.
    const real = Date.now();
    const target = Math.ceil((real + 5_000) / 60_000) * 60_000 - 2_500;
    const offset = target - real;
    const clock: Clock = { now: () => Date.now() + offset, speed: 1, fromReal: (ms) => ms + offset };
    const quietEnd = Math.ceil(clock.now() / 60_000) * 60_000;
    const quiet = { start: hhmm(quietEnd - 120_000), end: hhmm(quietEnd), timeZone: 'UTC' };
    const channel = new CapturingNotifier('mail');
    const started = await startPipeline({
      prefix,
      channels: [channel],
      clock,
      settings: new Map([['mail', settings({ paceKey: 'mail', groupWaitMs: 100, quietHours: quiet })]]),
    });
    stop = started.stop;
    await started.send([
      makeAlert(1),
      makeAlert(2),
      makeAlert(3, { kind: 'source_health', severity: 'critical', fingerprint: 'fp-critical' }),
    ]);
    await channel.waitForAlerts(1, 5_000);
    expect(channel.messages[0]?.message.alerts.map((a) => a.kind)).toEqual(['source_health']);
    expect(channel.messages[0]?.at ?? 0).toBeLessThan(quietEnd - offset);

    await channel.waitForAlerts(3, 15_000);
    expect(channel.messages).toHaveLength(2);
    expect(channel.messages[1]?.message.alerts.map((a) => a.fingerprint).sort()).toEqual([
      makeAlert(1).fingerprint,
      makeAlert(2).fingerprint,
    ]);
    expect((channel.messages[1]?.at ?? 0) + offset).toBeGreaterThanOrEqual(quietEnd);
  });
});
