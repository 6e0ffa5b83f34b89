import { inspect } from 'node:util';
import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DeliveryError, type Notifier, type OutgoingMessage } from '../../src/channels/notifier.ts';
import { SLACK_LIMITS } from '../../src/channels/render/slack-blocks.ts';
import { createSlackNotifier, webhookHash } from '../../src/channels/slack.ts';
import { Secret } from '../../src/config-kit/secret.ts';
import type { Alert } from '../../src/model/alert.ts';
import { type HttpReceiver, startHttpReceiver } from '../../src/tools/receivers/http.ts';

/** A distinctive credential, so a leak anywhere is easy to find. */
const TOKEN = 'S3cr3tT0kenDoNotLeak42';
const PATH = `/services/T0AAA/B0BBB/${TOKEN}`;
const ASIN = 'B0CJ4XQ2ZK';

function review(rating: number, body: string): Alert {
  return {
    fingerprint: `fp-${rating}-${body.length}`,
    workspace: 'acme',
    ruleId: 'reviews',
    kind: 'review_new',
    severity: 'info',
    status: 'firing',
    subject: { asin: ASIN, campaignId: 'camp-1', reviewId: `r${rating}` },
    title: `New ${rating}★ Amazon review of ${ASIN} (campaign camp-1)`,
    facts: {
      platform: 'amazon',
      rating,
      reviewer: '<@U123>',
      reviewTitle: '<!channel> read this',
      body,
      url: 'https://www.amazon.com/review/R1',
      lowStar: rating <= 2,
    },
    observedAt: Date.UTC(2026, 10, 21),
  };
}

function message(alerts: Alert[], extra: Partial<OutgoingMessage> = {}): OutgoingMessage {
  return { alerts, totalCount: alerts.length, hideLowStarText: false, messageId: 'msg-1', ...extra };
}

interface Payload {
  text: string;
  blocks: { type: string; text?: { text: string }; elements?: { text: string }[] }[];
  unfurl_links: boolean;
}

let receiver: HttpReceiver;
let dispatcher: Agent;
let notifier: Notifier;

beforeAll(async () => {
  receiver = await startHttpReceiver(PATH);
  dispatcher = new Agent();
  notifier = createSlackNotifier({
    id: 'launch-team',
    webhookUrl: new Secret(receiver.url),
    dispatcher,
    timeoutMs: 2_000,
  });
});

afterAll(async () => {
  await notifier.close?.();
  await dispatcher.close();
  await receiver.close();
});

let seen = 0;
beforeEach(() => {
  seen = receiver.requests.length;
});

/** The next request the receiver got after this test began. */
async function nextPayload(): Promise<Payload> {
  const requests = await receiver.waitForMessages(seen + 1, 5_000);
  return requests[seen]?.body as Payload;
}

async function sendError(n: Notifier, msg: OutgoingMessage, signal = AbortSignal.timeout(10_000)) {
  const error = await n.send(msg, signal).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DeliveryError);
  return error as DeliveryError;
}

function expectNoSecret(error: DeliveryError): void {
  const views = [
    error.message,
    String(error.stack),
    JSON.stringify(error),
    JSON.stringify({ ...error, cause: error.cause }),
    inspect(error, { depth: null, showHidden: true }),
  ];
  for (const view of views) {
    expect(view).not.toContain(TOKEN);
    expect(view).not.toContain(PATH);
  }
}

describe('slack notifier over HTTP', () => {
  it('posts JSON with blocks and a fallback text to the webhook path', async () => {
    await notifier.send(message([review(5, 'A lovely book & more')]), AbortSignal.timeout(5_000));
    const [request] = (await receiver.waitForMessages(seen + 1)).slice(seen);
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe(PATH);
    expect(request?.headers['content-type']).toMatch(/^application\/json/);
    const body = request?.body as Payload;
    expect(body.text).toContain(`New 5★ Amazon review of ${ASIN}`);
    expect(body.blocks[0]?.type).toBe('header');
    expect(body.blocks[1]?.text?.text).toContain('A lovely book &amp; more');
    expect(body.unfurl_links).toBe(false);
  });

  it('delivers hostile review text escaped and truncated, within every Slack limit', async () => {
    const hostile = '<!channel> <script>x</script> & <@U123> مرحبا 👍🏽 👩‍💻 '.repeat(300);
    expect(hostile.length).toBeGreaterThan(10_000);
    await notifier.send(message([review(4, hostile)]), AbortSignal.timeout(5_000));
    const body = await nextPayload();
    const section = body.blocks[1]?.text?.text ?? '';
    expect(section.length).toBeLessThanOrEqual(SLACK_LIMITS.sectionChars);
    expect(section).toContain(
      '&lt;!channel&gt; &lt;script&gt;x&lt;/script&gt; &amp; &lt;@U123&gt; مرحبا 👍🏽 👩‍💻',
    );
    expect(section).toContain('…');
    const raw = receiver.requests[seen]?.raw ?? '';
    expect(raw).not.toContain('<!channel>');
    expect(raw).not.toContain('<@U123>');
    expect(raw).not.toContain('<script>');
  });

  it('shows a reviewer name and a review title on one line each; the body stays quoted', async () => {
    const forged = review(5, 'Loved it\n*🔴 Royalties fell to 0* read on');
    forged.facts = {
      ...forged.facts,
      reviewer: 'Ann\n\n*🔴 Your Slack app was disabled*\r\nhttps://evil.example/login',
      reviewTitle: 'Great\u2028*🟠 Sales revised*\u0007',
    };
    await notifier.send(message([forged]), AbortSignal.timeout(5_000));
    const body = await nextPayload();
    const lines = (body.blocks[1]?.text?.text ?? '').split('\n');
    // Only the alert's own title starts a line with a mark; the rest sit on the lines they belong to.
    expect(lines.filter((line) => /^[*_~]*[🔴🟠🔵✅]/u.test(line))).toEqual([`🔵 *${forged.title}*`]);
    expect(lines).toContain(
      '★★★★★ · Amazon · by Ann *🔴 Your Slack app was disabled* https://evil.example/login',
    );
    expect(lines).toContain('*Great *🟠 Sales revised**');
    expect(lines).toContain('>*🔴 Royalties fell to 0* read on');
    expect(body.text).not.toContain('\n');
  });

  it('delivers a storm of 200 reviews as one message of at most 50 blocks with "…and N more"', async () => {
    const alerts = Array.from({ length: 200 }, (_, i) => review((i % 5) + 1, `review ${i} `.repeat(200)));
    await notifier.send(message(alerts, { hideLowStarText: true }), AbortSignal.timeout(5_000));
    const body = await nextPayload();
    expect(body.blocks.length).toBeLessThanOrEqual(50);
    const shown = body.blocks.filter((b) => b.type === 'section').length;
    expect(body.blocks.at(-1)?.elements?.[0]?.text).toBe(`…and ${200 - shown} more`);
    for (const block of body.blocks) {
      expect(block.text?.text.length ?? 0).toBeLessThanOrEqual(SLACK_LIMITS.sectionChars);
    }
    // hideLowStarText: 1★ and 2★ bodies stay out, others are shown.
    const texts = body.blocks.map((b) => b.text?.text ?? '');
    expect(texts.filter((t) => t.includes('★☆☆☆☆')).every((t) => t.includes('text hidden'))).toBe(true);
    expect(texts.some((t) => t.includes('★★★★★') && t.includes('review 4 review 4'))).toBe(true);
    expect(texts.some((t) => t.includes('review 0 review 0'))).toBe(false);
  });

  it('reports a 429 as retryable with Retry-After in milliseconds', async () => {
    receiver.respondWith(429, 'rate_limited', { 'retry-after': '7' });
    const error = await sendError(notifier, message([review(5, 'x')]));
    expect(error.retryable).toBe(true);
    expect(error.disableChannel).toBe(false);
    expect(error.status).toBe(429);
    expect(error.retryAfterMs).toBe(7_000);
    expect(error.channelId).toBe('launch-team');
    expect(error.message).toContain('429');
    expectNoSecret(error);
  });

  it.each([
    [400, 'invalid_payload', false],
    [403, 'action_prohibited', true],
    [404, 'channel_not_found', true],
    [410, 'channel_is_archived', true],
    [401, 'invalid_token', false],
  ])('reports HTTP %i %s as final (disable the channel: %s)', async (status, text, disable) => {
    receiver.respondWith(status, text);
    const error = await sendError(notifier, message([review(5, 'x')]));
    expect(error.retryable).toBe(false);
    expect(error.disableChannel).toBe(disable);
    expect(error.status).toBe(status);
    expect(error.retryAfterMs).toBeUndefined();
    expect(error.message).toContain(`HTTP ${status} ${text}`);
    expectNoSecret(error);
  });

  it('reports 500 and 503 as retryable, with Retry-After when given', async () => {
    receiver.respondWith(500, 'rollup_error');
    const e500 = await sendError(notifier, message([review(5, 'x')]));
    expect([e500.retryable, e500.disableChannel, e500.status, e500.retryAfterMs]).toEqual([
      true,
      false,
      500,
      undefined,
    ]);
    receiver.respondWith(503, '<html><body>Service Unavailable</body></html>', { 'retry-after': '2' });
    const e503 = await sendError(notifier, message([review(5, 'x')]));
    expect([e503.retryable, e503.status, e503.retryAfterMs]).toEqual([true, 503, 2_000]);
    expect(e503.message).toContain('(html error page)');
  });

  it('never repeats the webhook URL, even when a proxy echoes it back', async () => {
    receiver.respondWith(404, `no_service for ${receiver.url}`);
    const error = await sendError(notifier, message([review(5, 'x')]));
    expect(error.message).toContain('[redacted]');
    expectNoSecret(error);
    expect(String(new Secret(receiver.url))).toBe('[redacted]');
    expect(webhookHash(new Secret(receiver.url))).toMatch(/^[0-9a-f]{8}$/);
  });

  it('reports a timeout (the receiver never answers) as retryable and possibly delivered', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    receiver.respondWith(() => held.then(() => ({ status: 200, body: 'ok' })));
    const slow = createSlackNotifier({
      id: 'slow',
      webhookUrl: new Secret(receiver.url),
      dispatcher,
      timeoutMs: 300,
    });
    try {
      const error = await sendError(slow, message([review(5, 'x')]));
      expect(error.retryable).toBe(true);
      expect(error.disableChannel).toBe(false);
      expect(error.status).toBeUndefined();
      expect(error.message).toContain('timed out after 300 ms, possibly delivered');
      // The request went out: Slack may post it however late it answers.
      expect(error.possiblyDelivered).toBe(true);
      expectNoSecret(error);
    } finally {
      release();
    }
  });

  it('reports an abort while Slack has not answered as retryable', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    receiver.respondWith(() => held.then(() => ({ status: 200, body: 'ok' })));
    const controller = new AbortController();
    try {
      const pending = sendError(notifier, message([review(5, 'x')]), controller.signal);
      await receiver.waitForMessages(seen + 1);
      controller.abort(new Error('shutting down'));
      const error = await pending;
      expect(error.retryable).toBe(true);
      expect(error.message).toContain('send aborted');
      expect((error.cause as Error).message).toBe('shutting down');
    } finally {
      release();
    }
  });

  it('reports a refused connection as retryable, and a caller abort as such', async () => {
    const gone = await startHttpReceiver(PATH);
    const url = gone.url;
    await gone.close();
    const own = createSlackNotifier({ id: 'gone', webhookUrl: new Secret(url), timeoutMs: 2_000 });
    try {
      const error = await sendError(own, message([review(5, 'x')]));
      expect(error.retryable).toBe(true);
      expect(error.message).toContain('connection failed');
      expect(error.possiblyDelivered).toBe(false);
      expect((error.cause as { code?: string }).code).toBe('ECONNREFUSED');
      expectNoSecret(error);

      const aborted = await sendError(
        own,
        message([review(5, 'x')]),
        AbortSignal.abort(new Error('shutdown')),
      );
      expect(aborted.retryable).toBe(true);
      expect(aborted.message).toContain('aborted');
    } finally {
      // The notifier made its own Agent here; close() must release it.
      await own.close?.();
    }
  });
});
