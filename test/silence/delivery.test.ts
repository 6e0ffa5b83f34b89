/**
 * Silences on the real delivery path (BullMQ workers on real Redis): a silenced alert is recorded
 * and counted, not sent; expiring the silence sends nothing of what it kept, and a condition that
 * still fires alerts again only through its rule's repeat (a new fingerprint).
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  CapturingNotifier,
  makeAlert,
  pipelineForTest,
  settings,
  startPipeline,
} from '../deliver/pipeline-harness.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { waitFor } from '../helpers/wait.ts';

const HOUR = 3_600_000;

describe('silences at delivery', () => {
  it('keeps matching alerts from every channel, records and counts them, sends the rest', async () => {
    const slack = new CapturingNotifier('slack');
    const mail = new CapturingNotifier('mail');
    const { runtime, send } = await pipelineForTest('silence-basic', [slack, mail]);
    const now = Date.now();
    const silence = await runtime.silences.add(
      {
        matchers: { keyword: 'Keyword 1', kind: ['keyword_rank_drop'] },
        startsAt: now - 1_000,
        endsAt: now + HOUR,
        reason: 'launch week',
        createdBy: 'ana',
      },
      now,
    );
    const muted = makeAlert(1);
    const other = makeAlert(2);
    await send([muted, other]);
    await slack.waitForAlerts(1, 10_000);
    await mail.waitForAlerts(1, 10_000);
    await waitFor('two hits', async () => (await runtime.silences.hits()).get(silence.id) === 2, 10_000);
    expect(slack.fingerprints()).toEqual([other.fingerprint]);
    expect(mail.fingerprints()).toEqual([other.fingerprint]);
    const kept = await runtime.silences.silencedBetween(0, Date.now() + 1);
    expect(kept.map((r) => [r.alert.fingerprint, r.silenceId])).toEqual([[muted.fingerprint, silence.id]]);
    const metrics = await runtime.metrics.text();
    expect(metrics).toMatch(/shelfwatch_silenced_alerts_total\{channel="slack"\} 1/);
  }, 30_000);

  it('after expiry: nothing kept is sent; a still-firing condition alerts again only on its repeat', async () => {
    const slack = new CapturingNotifier('slack');
    const { runtime, send } = await pipelineForTest('silence-expire', [slack]);
    const now = Date.now();
    const silence = await runtime.silences.add(
      { matchers: { rule: 'rule' }, startsAt: now, endsAt: now + HOUR, reason: 'r', createdBy: 'ana' },
      now,
    );
    const fired = makeAlert(1);
    await send([fired]);
    await waitFor('a hit', async () => (await runtime.silences.hits()).get(silence.id) === 1, 10_000);
    const expired = await runtime.silences.expire(silence.id, Date.now());
    expect(expired?.expiredAt).toBeTypeOf('number');
    // The same observation again (a re-run poll): already handled, not sent now.
    await send([fired]);
    // The rule's repeat is a new observation, so a new fingerprint: that one is sent.
    const repeat = makeAlert(1, { fingerprint: 'repeat-1', title: 'keyword 1 is still down' });
    await send([repeat]);
    await slack.waitForAlerts(1, 10_000);
    // Give a wrongly re-sent first alert a group window to arrive in.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(slack.fingerprints()).toEqual(['repeat-1']);
  }, 30_000);

  it('a silence set while alerts wait in their group holds them too', async () => {
    const slack = new CapturingNotifier('slack');
    const prefix = testPrefix('silence-waiting');
    testRedis(prefix);
    const started = await startPipeline({
      prefix,
      channels: [slack],
      settings: new Map([['slack', settings({ paceKey: 'slack', groupWaitMs: 1_500 })]]),
    });
    onTestFinished(started.stop);
    await started.send([makeAlert(1), makeAlert(2)]);
    const now = Date.now();
    await started.runtime.silences.add(
      { matchers: { keyword: 'keyword 2' }, startsAt: now, endsAt: now + HOUR, reason: 'r', createdBy: 'b' },
      now,
    );
    await slack.waitForAlerts(1, 10_000);
    expect(slack.fingerprints()).toEqual([makeAlert(1).fingerprint]);
  }, 30_000);
});
