/**
 * The contract every channel keeps, run against each registered channel with its local receiver:
 * hostile text arrives escaped and cut, a storm fits the channel's limits with "…and N more", the
 * channel's own rate-limit signal becomes `retryAfterMs`, a 5xx is retried, a permanent refusal
 * disables the channel (and the alert that tells the other channels names no secret), and no
 * secret reaches an error or a log line.
 */
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryError, type Notifier, type OutgoingMessage } from '../../../src/channels/notifier.ts';
import { channelDisabledAlert } from '../../../src/deliver/channel-health.ts';
import { sampleAlertTitle, sampleMessage } from '../../../src/deliver/sample-alert.ts';
import type { Alert } from '../../../src/model/alert.ts';

export interface RunningChannel {
  notifier: Notifier;
  /** Secret text of the config (tokens, URL paths): never in an error, a log line or a health alert. */
  secrets: readonly string[];
  /** The next message the receiver got (since the previous call), as a person's client gets it. */
  nextDelivered(): Promise<string>;
  /** The channel's own size limits hold for this message. */
  expectWithinLimits(delivered: string): void;
  /** Text that, delivered as it is, would ping someone, run markup or reorder text. */
  forbidden: readonly string[];
  /** Scripts the channel's own 429 signal for the next request; returns the wait it asks for (ms). */
  rateLimited?(): number;
  serverError?(): void;
  /** Scripts an answer that says the endpoint is gone for good. */
  refusedForGood?(): void;
  /** Everything the channel logged. */
  logged(): string;
  close(): Promise<void>;
}

const HOSTILE_BODY = [
  '\u202Eevil\u202C <script>alert(1)</script> @everyone @here <!channel> <@U123>',
  '[click me](https://evil.example/phish) **bold** __u__ ~~s~~ `code` # heading',
  'x'.repeat(10_000),
].join('\n');

export function hostileAlert(n = 1): Alert {
  return {
    fingerprint: `hostile-${n}`,
    workspace: 'acme',
    ruleId: 'reviews',
    kind: 'review_new',
    severity: 'info',
    status: 'firing',
    subject: { asin: 'B0CJ4XQ2ZK', reviewId: `r${n}` },
    title: `New 4★ review <!here> @everyone [link](https://evil.example) <b>x</b> \u202Eexe.txt #${n}`,
    facts: {
      platform: 'amazon',
      rating: 4,
      reviewer: '<@U123> @everyone \u202Eredaer',
      reviewTitle: '<!here> @here [click me](https://evil.example/phish) <i>hi</i> *x* _y_',
      body: HOSTILE_BODY,
      url: 'https://www.amazon.com/review/R1',
      lowStar: false,
    },
    observedAt: Date.UTC(2026, 10, 21, 14),
  };
}

function message(alerts: Alert[], totalCount = alerts.length): OutgoingMessage {
  return { alerts, totalCount, hideLowStarText: false, messageId: `conf-${alerts.length}-${totalCount}` };
}

function views(error: DeliveryError): string[] {
  return [
    error.message,
    String(error.stack),
    JSON.stringify(error),
    inspect(error, { depth: null, showHidden: true }),
  ];
}

async function failure(channel: RunningChannel, msg: OutgoingMessage): Promise<DeliveryError> {
  const error = await channel.notifier.send(msg, AbortSignal.timeout(10_000)).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DeliveryError);
  const delivery = error as DeliveryError;
  for (const view of views(delivery))
    for (const secret of channel.secrets) expect(view).not.toContain(secret);
  return delivery;
}

export function conformanceSuite(type: string, start: () => Promise<RunningChannel>): void {
  describe(`channel "${type}" keeps the channel contract`, () => {
    let channel: RunningChannel;
    beforeAll(async () => {
      channel = await start();
    });
    afterAll(async () => {
      await channel?.close();
    });

    it('delivers the sample alert (what test-alert sends)', async () => {
      expect(channel.notifier.type).toBe(type);
      await channel.notifier.send(
        sampleMessage(channel.notifier.id, Date.now()),
        AbortSignal.timeout(10_000),
      );
      const delivered = await channel.nextDelivered();
      expect(delivered).toContain(`channel ${channel.notifier.id} works`);
      expect(sampleAlertTitle(channel.notifier.id)).toContain(
        'Test alert from shelfwatch — no action needed',
      );
    });

    it('delivers hostile text escaped and cut: no mention pings, no markup runs', async () => {
      await channel.notifier.send(message([hostileAlert()]), AbortSignal.timeout(10_000));
      const delivered = await channel.nextDelivered();
      for (const bad of channel.forbidden)
        expect(delivered, `found ${JSON.stringify(bad)}`).not.toContain(bad);
      expect(delivered).not.toContain('x'.repeat(10_000));
      expect(delivered).toContain('…');
      channel.expectWithinLimits(delivered);
    });

    it('delivers a storm within the limits, ending with "…and N more"', async () => {
      const alerts = Array.from({ length: 120 }, (_, i) => hostileAlert(i + 2));
      await channel.notifier.send(message(alerts, 150), AbortSignal.timeout(10_000));
      const delivered = await channel.nextDelivered();
      expect(delivered).toMatch(/…and \d+ more/);
      channel.expectWithinLimits(delivered);
    });

    it("turns the channel's own rate-limit signal into a wait", async (ctx) => {
      if (channel.rateLimited === undefined) return ctx.skip('the channel has no rate-limit signal');
      const asked = channel.rateLimited();
      const error = await failure(channel, message([hostileAlert()]));
      expect([error.retryable, error.disableChannel, error.status]).toEqual([true, false, 429]);
      expect(error.retryAfterMs).toBe(asked);
    });

    it('retries a server error', async (ctx) => {
      if (channel.serverError === undefined) return ctx.skip('the channel has no server to fail');
      channel.serverError();
      const error = await failure(channel, message([hostileAlert()]));
      expect([error.retryable, error.disableChannel]).toEqual([true, false]);
    });

    it('disables itself on a permanent refusal; the alert to the others names no secret', async (ctx) => {
      if (channel.refusedForGood === undefined) return ctx.skip('the channel cannot be refused');
      channel.refusedForGood();
      const error = await failure(channel, message([hostileAlert()]));
      expect([error.retryable, error.disableChannel]).toEqual([false, true]);
      const health = JSON.stringify(channelDisabledAlert(channel.notifier.id, error, Date.now()));
      expect(health).toContain(channel.notifier.id);
      for (const secret of channel.secrets) expect(health).not.toContain(secret);
    });

    it('never logs a secret', () => {
      const logged = channel.logged();
      for (const secret of channel.secrets) expect(logged).not.toContain(secret);
    });
  });
}
