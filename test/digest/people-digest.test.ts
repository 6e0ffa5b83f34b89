/**
 * A second person with the digest subscription gets the daily digest in their Slack (compact) and
 * by email (the full report), in their own zone: the digest processor against the simulator,
 * Redis, a local HTTP receiver for the Slack webhook and a real SMTP server.
 */
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createNotifiers } from '../../src/app/notifiers.ts';
import type { Notifier } from '../../src/channels/notifier.ts';
import { createSmtpPool, type SmtpPool } from '../../src/channels/smtp-pool.ts';
import { processDigest } from '../../src/digest/processor.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { type HttpReceiver, startHttpReceiver } from '../../src/tools/receivers/http.ts';
import { type SmtpReceiver, startSmtpReceiver } from '../../src/tools/receivers/smtp.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { type Scenario, startScenario, WORKSPACE } from './sim-scenario.ts';

const prefix = testPrefix('people-digest');
const redis = testRedis(prefix);
/** 08:00 in New York on Sat 21 Nov 2026: Bob's digest for Fri 20 Nov. */
const FIRE = Date.UTC(2026, 10, 21, 13);
const signal = new AbortController().signal;

let capture: SmtpReceiver;
let slack: HttpReceiver;
let pool: SmtpPool;
let notifiers: Map<string, Notifier>;
let s: Scenario;

beforeAll(async () => {
  capture = await startSmtpReceiver();
  slack = await startHttpReceiver();
  pool = createSmtpPool({ rateLimit: 0, connectionTimeout: 2_000, greetingTimeout: 2_000 });
  s = await startScenario({
    startAt: '2026-11-21T13:00:30Z',
    timeZone: 'Europe/Berlin',
    redis,
    prefix,
    channels: [
      {
        id: 'mail',
        type: 'email',
        smtpUrl: capture.url,
        from: 'digest@shelfwatch.test',
        to: ['team@acme.test'],
      },
    ],
    recipients: [],
    people: {
      accounts: [
        { id: 'ana', name: 'Ana', email: 'ana@acme.test' },
        {
          id: 'bob',
          name: 'Bob',
          email: 'bob@acme.test',
          timeZone: 'America/New_York',
          channel: { type: 'slack', webhookUrl: slack.url, allowAnyHost: true },
        },
      ],
      subscriptions: [
        // The first person: alerts only, no digest.
        { person: 'ana', kinds: ['bsr_worsened'] },
        { person: 'bob', alerts: false, digest: true },
      ],
    },
    smtp: pool,
  });
  notifiers = createNotifiers(s.deps.config.channels, {
    logger: silentLogger(),
    smtp: pool,
    clock: s.deps.clock,
  });
  s.deps.notifierFor = (id) => notifiers.get(id);
  await s.pollAll();
});

afterAll(async () => {
  for (const notifier of notifiers?.values() ?? []) await notifier.close?.();
  await slack?.close();
  await s?.close();
  await pool?.closeAll();
  await capture?.stop();
});

it('the second person, with the digest subscription, is its recipient twice: their Slack and their email, in their zone', () => {
  expect(s.deps.config.digest.enabled).toBe(true);
  expect(s.deps.config.digest.recipients).toEqual([
    { workspace: WORKSPACE, channel: 'person-bob', timeZone: 'America/New_York' },
    { workspace: WORKSPACE, channel: 'person-bob-mail', timeZone: 'America/New_York' },
  ]);
});

it('gets the compact digest in Slack and the full digest by email', async () => {
  const inSlack = await processDigest(
    s.deps,
    { workspace: WORKSPACE, channel: 'person-bob' },
    { signal, fireTimeMs: FIRE },
  );
  expect(inSlack).toMatchObject({ status: 'sent', day: '2026-11-20', kind: 'chat' });
  const [post] = await slack.waitForMessages(1, 10_000);
  const body = post?.body as { text: string; blocks: { type: string; text?: { text: string } }[] };
  expect(body.text).toMatch(/^Daily digest for acme — Fri 20 Nov/);
  expect(body.blocks[0]).toMatchObject({ type: 'header' });
  const all = JSON.stringify(body.blocks);
  expect(all).toContain('*Totals*');
  expect(all).toContain('America/New_York');
  expect(all).toContain('comes by email');
  // Titles first in the movers and reviews: a sim book's title appears, not only its ASIN.
  expect(s.books.some((b) => all.includes(b.title.replace(/&/g, '&amp;').replace(/</g, '&lt;')))).toBe(true);

  const byMail = await processDigest(
    s.deps,
    { workspace: WORKSPACE, channel: 'person-bob-mail' },
    { signal, fireTimeMs: FIRE },
  );
  expect(byMail).toMatchObject({ status: 'sent', day: '2026-11-20', kind: 'email' });
  const [message] = await capture.waitForMessages(1, 10_000);
  expect(message?.to).toEqual(['bob@acme.test']);
  const mail = await simpleParser(message?.raw ?? Buffer.alloc(0));
  expect(mail.subject).toMatch(/^Daily digest for acme — Fri 20 Nov/);
  expect(capture.messages).toHaveLength(1);
  expect(slack.requests).toHaveLength(1);
  // Ana subscribed to no digest: nothing was scheduled for her.
  expect(s.deps.config.digest.recipients.some((r) => r.channel.startsWith('person-ana'))).toBe(false);
});

it('a second run for the same day sends nothing again on either channel', async () => {
  for (const channel of ['person-bob', 'person-bob-mail'])
    expect(
      await processDigest(s.deps, { workspace: WORKSPACE, channel }, { signal, fireTimeMs: FIRE }),
    ).toEqual({ status: 'duplicate', day: '2026-11-20' });
  expect(slack.requests).toHaveLength(1);
  expect(capture.messages).toHaveLength(1);
});
