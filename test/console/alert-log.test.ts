/**
 * The alert log the console reads: one entry per alert, written where alerts are enqueued, each
 * channel's outcome filled in by the real delivery pipeline (delivered, silenced, dead-lettered),
 * bounded by count and age.
 */
import { describe, expect, it } from 'vitest';
import { DeliveryError } from '../../src/channels/notifier.ts';
import { AlertLog } from '../../src/history/alert-log.ts';
import { CapturingNotifier, makeAlert, settings, startPipeline } from '../deliver/pipeline-harness.ts';
import { stopAfterEach } from '../helpers/cleanup.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';

const defer = stopAfterEach();

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`not reached within ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('alert log', () => {
  it('keeps at most maxEntries, drops entries older than the retention, and writes each alert once', async () => {
    const prefix = testPrefix('alertlog');
    const redis = testRedis(prefix);
    let now = 1_800_000_001_000;
    const log = new AlertLog(redis, prefix, { maxEntries: 100, retentionMs: 50_000 }, () => now);
    const alerts = Array.from({ length: 150 }, (_, i) => ({ alert: makeAlert(i), channels: ['a'] }));
    await log.record(alerts);
    await log.record(alerts.slice(140));
    expect(await log.size()).toBe(100);
    // The oldest went: the newest 100 remain.
    expect(await log.get(makeAlert(49).fingerprint)).toBeUndefined();
    expect((await log.get(makeAlert(50).fingerprint))?.deliveries).toEqual({ a: 'queued' });
    now = 1_800_000_000_000 + 50_000 + 120;
    await log.record([{ alert: makeAlert(1_000, { observedAt: now }), channels: ['a'] }]);
    // Entries observed before now − 50 s (n < 120) are gone.
    expect(await log.size()).toBe(31);
    const { entries } = await log.query({ keep: (e) => e.keyword === 'keyword 130', limit: 5 });
    expect(entries.map((e) => e.title)).toEqual(['keyword 130 fell']);
    // One book's alerts come from its own index: another book's are not read.
    const other = makeAlert(2_000, { observedAt: now, subject: { asin: 'B0OTHER001', marketplace: 'US' } });
    await log.record([{ alert: other, channels: ['a'] }]);
    const ofBook = await log.query({ asin: 'B0OTHER001', keep: () => true, limit: 10 });
    expect(ofBook).toEqual({
      entries: [expect.objectContaining({ fingerprint: other.fingerprint })],
      scanned: 1,
    });
    // A filter matching nothing in the scanned part still leads on: the next page starts where it stopped.
    const none = await log.query({ keep: () => false, limit: 10, maxScanned: 5 });
    expect(none.entries).toEqual([]);
    expect(none.nextBeforeMs).toBe(makeAlert(147).observedAt); // after the two newest (at `now`), 149 and 148
    const rest = await log.query({ keep: () => true, limit: 100, beforeMs: none.nextBeforeMs });
    expect(rest.entries[0]?.fingerprint).toBe(makeAlert(146).fingerprint);
    expect(rest.nextBeforeMs).toBeUndefined();
  });

  it('records each channel outcome: delivered, silenced, dead-lettered', async () => {
    const prefix = testPrefix('alertlog-pipeline');
    testRedis(prefix);
    const ok = new CapturingNotifier('ok');
    const quiet = new CapturingNotifier('quiet');
    const broken = new CapturingNotifier('broken');
    broken.failWith = () =>
      new DeliveryError('refused', { channelId: 'broken', retryable: false, status: 400 });
    const started = await startPipeline({
      prefix,
      attempts: 1,
      channels: [ok, quiet, broken],
      settings: new Map(['ok', 'quiet', 'broken'].map((id) => [id, settings({ paceKey: id })])),
    });
    defer(started.stop);
    const { runtime } = started;
    const now = runtime.clock.now();
    const silence = {
      matchers: { keyword: 'keyword 7' },
      startsAt: now - 1_000,
      endsAt: now + 3_600_000,
      reason: 'launch',
      createdBy: 'test',
    };
    await runtime.silences.add(silence, now);
    const alert = makeAlert(7);
    await started.send([alert]);
    const entry = await until(
      () => runtime.alertLog.get(alert.fingerprint),
      (e) => e !== undefined && Object.values(e.deliveries).every((o) => o !== 'queued'),
    );
    // A silence holds on every channel, the broken one too: nothing was tried there.
    expect(entry?.deliveries).toEqual({ ok: 'silenced', quiet: 'silenced', broken: 'silenced' });
    const other = makeAlert(8);
    await started.send([other]);
    await ok.waitForAlerts(1, 10_000);
    const delivered = await until(
      () => runtime.alertLog.get(other.fingerprint),
      (e) => e !== undefined && Object.values(e.deliveries).every((o) => o !== 'queued'),
    );
    expect(delivered?.deliveries).toEqual({ ok: 'delivered', quiet: 'delivered', broken: 'dead-lettered' });
    expect(delivered?.title).toBe('keyword 8 fell');
  });
});
