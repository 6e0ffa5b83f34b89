/**
 * Sending for real: the digest processor against the simulator, Redis, a real SMTP server
 * (parsed with mailparser) and an outbox folder.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_RATE_LIMIT_PAUSE_MS } from '../../src/budget/api-outcome-policy.ts';
import { DeliveryError } from '../../src/channels/notifier.ts';
import { createSmtpPool, type SmtpPool } from '../../src/channels/smtp-pool.ts';
import { buildDigest } from '../../src/digest/build.ts';
import { processDigest } from '../../src/digest/processor.ts';
// The digest's deferrals are the jobs' one DeferredError (named DigestDeferredError when thrown).
import { DeferredError as DigestDeferredError } from '../../src/model/deferred.ts';
import { type SmtpReceiver, startSmtpReceiver } from '../../src/tools/receivers/smtp.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { type Scenario, startScenario, WORKSPACE } from './sim-scenario.ts';

const prefix = testPrefix('digest-send');
const redis = testRedis(prefix);
const dir = mkdtempSync(join(tmpdir(), 'shelfwatch-digest-outbox-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** 08:00 in Berlin on Sat 21 Nov 2026: the digest for Fri 20 Nov. */
const FIRE = Date.UTC(2026, 10, 21, 7);
const DAY = '2026-11-20';
const signal = new AbortController().signal;

let capture: SmtpReceiver;
let pool: SmtpPool;
let s: Scenario;

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

beforeAll(async () => {
  capture = await startSmtpReceiver();
  pool = createSmtpPool({ rateLimit: 0, connectionTimeout: 2_000, greetingTimeout: 2_000 });
  s = await startScenario({
    startAt: '2026-11-21T07:00:30Z',
    timeZone: 'Europe/Berlin',
    redis,
    prefix,
    channels: [
      {
        id: 'mail',
        type: 'email',
        smtpUrl: capture.url,
        from: 'digest@shelfwatch.test',
        to: ['publisher@acme.test'],
      },
      { id: 'box', type: 'outbox', dir },
      { id: 'log', type: 'log' },
    ],
    recipients: [
      { workspace: WORKSPACE, channel: 'mail' },
      { workspace: WORKSPACE, channel: 'box' },
    ],
    smtp: pool,
  });
  await s.pollAll();
});

afterAll(async () => {
  await s?.close();
  await pool?.closeAll();
  await capture?.stop();
});

describe('sending the digest', () => {
  it('records nothing when the SMTP server refuses, so the retry sends it', async () => {
    capture.refuseNext(1, 'data', 451);
    const error = await rejection(
      processDigest(s.deps, { workspace: WORKSPACE, channel: 'mail' }, { signal, fireTimeMs: FIRE }),
    );
    expect(error).toBeInstanceOf(DeliveryError);
    expect((error as DeliveryError).retryable).toBe(true);
    expect(await s.deps.state.wasSent(WORKSPACE, 'mail', DAY)).toBe(false);
    expect(await s.deps.state.getLast(WORKSPACE, 'mail')).toBeNull();
  });

  it('sends a multipart email with text, HTML and inline PNG charts referenced by cid, with alt text', async () => {
    const result = await processDigest(
      s.deps,
      { workspace: WORKSPACE, channel: 'mail' },
      { signal, fireTimeMs: FIRE },
    );
    expect(result).toMatchObject({ status: 'sent', day: DAY, kind: 'email' });
    const [message] = await capture.waitForMessages(1, 5_000);
    if (message === undefined || result.status !== 'sent') throw new Error('no message');
    expect(message.to).toEqual(['publisher@acme.test']);
    const mail = await simpleParser(message.raw, { keepCidLinks: true });
    expect(mail.subject).toBe(result.subject);
    expect(mail.subject).toMatch(/^Daily digest for acme — Fri 20 Nov: .+ USD royalties, /);
    expect(mail.text).toContain('SALES — Fri 20 Nov');
    expect(mail.text).toContain('ACoS here = ad spend ÷ royalties');
    const html = typeof mail.html === 'string' ? mail.html : '';
    expect(html).toContain('<h1');
    const images = mail.attachments.filter((a) => a.contentType === 'image/png');
    expect(images.length).toBeGreaterThanOrEqual(5);
    expect(images.length).toBe(mail.attachments.length);
    for (const image of images) {
      expect(image.cid).toBeTruthy();
      expect(image.contentDisposition).toBe('inline');
      expect(image.content.subarray(1, 4).toString()).toBe('PNG');
      const tag = new RegExp(
        `<img src="cid:${image.cid?.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}" alt="([^"]{20,})"`,
      );
      expect(html).toMatch(tag);
    }
    expect(html).toContain('alt="Daily royalties in USD,');
    expect(message.raw.toString()).toMatch(/multipart\/related/);
    expect(message.raw.toString()).toMatch(/multipart\/alternative/);
    expect(await s.deps.state.wasSent(WORKSPACE, 'mail', DAY)).toBe(true);
    expect((await s.deps.state.getLast(WORKSPACE, 'mail'))?.day).toBe(DAY);
  });

  it('sends nothing the second time for the same local date, even from a later retry', async () => {
    const again = await processDigest(
      s.deps,
      { workspace: WORKSPACE, channel: 'mail' },
      { signal, fireTimeMs: FIRE + 3_600_000 },
    );
    expect(again).toEqual({ status: 'duplicate', day: DAY });
    expect(capture.messages).toHaveLength(1);
  });

  it('writes the outbox variant as .eml and .html, whole, and records it', async () => {
    const result = await processDigest(
      s.deps,
      { workspace: WORKSPACE, channel: 'box' },
      { signal, fireTimeMs: FIRE },
    );
    expect(result).toMatchObject({ status: 'sent', kind: 'outbox' });
    const stem = join(dir, `digest-${WORKSPACE}-${DAY}-box`);
    expect(existsSync(`${stem}.eml`) && existsSync(`${stem}.html`)).toBe(true);
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    const eml = await simpleParser(readFileSync(`${stem}.eml`), { keepCidLinks: true });
    expect(eml.subject).toMatch(/^Daily digest for acme — Fri 20 Nov/);
    expect(eml.attachments.every((a) => a.contentType === 'image/png' && a.cid !== undefined)).toBe(true);
    const html = readFileSync(`${stem}.html`, 'utf8');
    expect(html).toContain('src="data:image/png;base64,');
    expect(html).not.toContain('src="cid:');
    expect(
      await processDigest(s.deps, { workspace: WORKSPACE, channel: 'box' }, { signal, fireTimeMs: FIRE }),
    ).toEqual({
      status: 'duplicate',
      day: DAY,
    });
  });

  it('refuses a channel that cannot carry a digest for good, and skips recipients no longer configured', async () => {
    // validate refuses such a recipient (test/config/digest-channels.test.ts); the send refuses it too.
    const { digest } = s.deps.config;
    const recipients = [
      ...digest.recipients,
      { workspace: WORKSPACE, channel: 'log', timeZone: 'Europe/Berlin' },
    ];
    const deps = { ...s.deps, config: { ...s.deps.config, digest: { ...digest, recipients } } };
    const error = await rejection(
      processDigest(deps, { workspace: WORKSPACE, channel: 'log' }, { signal, fireTimeMs: FIRE }),
    );
    expect(error).toBeInstanceOf(DeliveryError);
    expect((error as DeliveryError).retryable).toBe(false);
    expect(
      await processDigest(s.deps, { workspace: WORKSPACE, channel: 'gone' }, { signal, fireTimeMs: FIRE }),
    ).toEqual({
      status: 'stale',
    });
  });
});

describe('when the API cannot give sales', () => {
  const recipient = { workspace: WORKSPACE, channel: 'mail', timeZone: 'Europe/Berlin' };

  it('renders "sales data unavailable", not zeros, when the sales fetch fails', async () => {
    const control = { kind: 'status', status: 503, code: 'unavailable', count: 4, pathPrefix: '/v1/sales' };
    await s.admin('POST', '/_sim/faults', control);
    const built = await buildDigest(s.deps, { workspace: WORKSPACE, recipient, nowMs: s.sim.clock.now() });
    await s.admin('DELETE', '/_sim/faults');
    expect(built.figures.sales.status).toBe('unavailable');
    expect(built.text).toMatch(/Sales data unavailable \(.*503.*\)/);
    expect(built.text).not.toMatch(/royalties [\d.,]+ USD/);
    expect(built.subject).toContain('sales data unavailable');
    expect(built.figures.bsr.books.length).toBeGreaterThan(0);
  });

  it('defers (a typed error with the retry time) when the budget refuses or the API says 429', async () => {
    const now = s.sim.clock.now();
    await s.deps.budget.pauseUntil(WORKSPACE, now + 60_000, 'rate_limited');
    const paused = await rejection(buildDigest(s.deps, { workspace: WORKSPACE, recipient, nowMs: now }));
    await s.deps.budget.resume(WORKSPACE);
    expect(paused).toBeInstanceOf(DigestDeferredError);
    expect((paused as DigestDeferredError).retryAtMs).toBe(now + 60_000);

    await s.admin('POST', '/_sim/faults', {
      kind: 'status',
      status: 429,
      code: 'rate_limited',
      retryAfter: { seconds: 30 },
      pathPrefix: '/v1/sales',
    });
    const limited = await rejection(buildDigest(s.deps, { workspace: WORKSPACE, recipient, nowMs: now }));
    expect(limited).toBeInstanceOf(DigestDeferredError);
    expect((limited as DigestDeferredError).retryAtMs).toBe(now + 30_000);
    // The 429 paused the whole workspace's budget, so polls back off too.
    expect((await s.deps.budget.usage(WORKSPACE)).pauseReason).toBe('rate_limited');
    await s.deps.budget.resume(WORKSPACE);
  });

  it("follows the poller's policy: a huge Retry-After is bounded, a 401 pauses the workspace", async () => {
    const now = s.sim.clock.now();
    const retryAfter = { seconds: 2_592_000 };
    await s.admin('POST', '/_sim/faults', { kind: 'status', status: 429, code: 'rate_limited', retryAfter });
    const limited = await rejection(buildDigest(s.deps, { workspace: WORKSPACE, recipient, nowMs: now }));
    expect((limited as DigestDeferredError).retryAtMs).toBe(now + MAX_RATE_LIMIT_PAUSE_MS);
    await s.deps.budget.resume(WORKSPACE);

    await s.admin('POST', '/_sim/faults', { kind: 'status', status: 401, code: 'unauthorized' });
    const built = await buildDigest(s.deps, { workspace: WORKSPACE, recipient, nowMs: now });
    expect(built.figures.sales.status).toBe('unavailable');
    expect((await s.deps.budget.usage(WORKSPACE)).pauseReason).toBe('unauthorized');
    await s.deps.budget.resume(WORKSPACE);
  });
});
