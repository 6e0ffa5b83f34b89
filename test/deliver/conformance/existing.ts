/** Harnesses for the log, Slack, email and outbox channels. */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { SLACK_LIMITS } from '../../../src/channels/render/slack-blocks.ts';
import { startHttpReceiver } from '../../../src/tools/receivers/http.ts';
import { startSmtpReceiver } from '../../../src/tools/receivers/smtp.ts';
import { buildChannel, requestReader } from './harness.ts';
import type { RunningChannel } from './suite.ts';

const SLACK_TOKEN = 'SlackT0kenDoNotLeak42';

export async function slackHarness(): Promise<RunningChannel> {
  const receiver = await startHttpReceiver(`/services/T0AAA/B0BBB/${SLACK_TOKEN}`);
  const built = buildChannel({
    id: 'conf-slack',
    type: 'slack',
    webhookUrl: receiver.url,
    allowAnyHost: true,
  });
  const next = requestReader(receiver);
  return {
    notifier: built.notifier,
    secrets: [SLACK_TOKEN],
    nextDelivered: async () => (await next()).raw,
    expectWithinLimits(delivered) {
      const body = JSON.parse(delivered) as { text: string; blocks: { text?: { text: string } }[] };
      expect(body.blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.blocks);
      for (const block of body.blocks) {
        expect(block.text?.text.length ?? 0).toBeLessThanOrEqual(SLACK_LIMITS.sectionChars);
      }
      expect(body.text.length).toBeLessThanOrEqual(SLACK_LIMITS.textChars);
    },
    forbidden: ['<!here>', '<!channel>', '<@U123>', '<script>', '<b>', '\u202E'],
    rateLimited: () => {
      receiver.respondWith(429, 'rate_limited', { 'retry-after': '7' });
      return 7_000;
    },
    serverError: () => receiver.respondWith(500, 'rollup_error'),
    refusedForGood: () => receiver.respondWith(404, `channel_not_found ${receiver.url}`),
    logged: built.logged,
    close: async () => {
      await built.notifier.close?.();
      await receiver.close();
    },
  };
}

/**
 * Mail servers take messages of 10 MB and more; 200 listed alerts with cut bodies stay far below.
 * (Gmail clips HTML past 102 KB: a storm's email is longer. Not the channel contract's concern.)
 */
const EMAIL_HTML_CHARS = 1_000_000;

const SMTP_PASSWORD = 'SmtpPassw0rdDoNotLeak';

export async function emailHarness(): Promise<RunningChannel> {
  const capture = await startSmtpReceiver({ auth: { user: 'shelfwatch', pass: SMTP_PASSWORD } });
  const built = buildChannel({
    id: 'conf-email',
    type: 'email',
    smtpUrl: capture.urlWithAuth('shelfwatch', SMTP_PASSWORD),
    from: 'shelfwatch@example.com',
    to: ['author@example.com'],
  });
  let read = 0;
  return {
    notifier: built.notifier,
    secrets: [SMTP_PASSWORD],
    nextDelivered: async () => {
      const messages = await capture.waitForMessages(read + 1, 5_000);
      const mail = messages[read]?.mail;
      read += 1;
      // The HTML part is the one with markup to break; the text part is plain by nature.
      return String(mail?.html ?? '');
    },
    expectWithinLimits: (html) => expect(html.length).toBeLessThan(EMAIL_HTML_CHARS),
    forbidden: ['<script>', '<!here>', '<b>x', '<i>hi', '@everyone <!channel>'],
    serverError: () => capture.refuseNext(1, 'data', 451, 'try again later'),
    refusedForGood: () => capture.refuseNext(1, 'rcpt', 550, 'no such mailbox'),
    logged: built.logged,
    close: async () => {
      await built.smtp.closeAll();
      await capture.stop();
    },
  };
}

export async function outboxHarness(): Promise<RunningChannel> {
  const root = mkdtempSync(join(tmpdir(), 'shelfwatch-conformance-'));
  const dir = join(root, 'outbox');
  const built = buildChannel({ id: 'conf-outbox', type: 'outbox', dir });
  const seen = new Set<string>();
  return {
    notifier: built.notifier,
    secrets: [],
    // A send resolves once its files are in place: the new .html is there to read.
    nextDelivered: async () => {
      const fresh = readdirSync(dir).filter((name) => name.endsWith('.html') && !seen.has(name));
      expect(fresh).toHaveLength(1);
      const [name = ''] = fresh;
      seen.add(name);
      return readFileSync(join(dir, name), 'utf8');
    },
    expectWithinLimits: (html) => expect(html.length).toBeLessThan(EMAIL_HTML_CHARS),
    forbidden: ['<script>', '<!here>', '<b>x', '<i>hi'],
    // A file where the folder should be: nothing will be written until someone fixes it.
    refusedForGood: () => {
      rmSync(dir, { recursive: true, force: true });
      writeFileSync(dir, 'not a folder');
    },
    logged: built.logged,
    close: async () => rmSync(root, { recursive: true, force: true }),
  };
}

export async function logHarness(): Promise<RunningChannel> {
  const built = buildChannel({ id: 'conf-log', type: 'log' });
  return {
    notifier: built.notifier,
    secrets: [],
    nextDelivered: async () => built.takeLines().join('\n'),
    expectWithinLimits: (lines) => {
      for (const line of lines.split('\n')) expect(line.length).toBeLessThan(10_000);
    },
    // One JSON line per alert: a line break in a title would forge a line of its own.
    forbidden: ['\n{"level":30,"time":0'],
    logged: built.logged,
    close: async () => {},
  };
}
