/**
 * Every alert email says why it was sent and how to mute it (a real SMTP server reads it), and
 * carries List-Unsubscribe only when the channel names something that honours it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmailNotifier } from '../../src/channels/email.ts';
import type { OutgoingMessage } from '../../src/channels/notifier.ts';
import { createSmtpPool, type SmtpPool } from '../../src/channels/smtp-pool.ts';
import { parseConfig } from '../../src/config/load.ts';
import { Secret } from '../../src/config-kit/secret.ts';
import { type SmtpReceiver, startSmtpReceiver } from '../../src/tools/receivers/smtp.ts';
import { problemAt, validRaw } from '../config/helpers.ts';
import { makeAlert } from '../deliver/pipeline-harness.ts';

const signal = new AbortController().signal;
let capture: SmtpReceiver;
let pool: SmtpPool;

beforeAll(async () => {
  capture = await startSmtpReceiver();
  pool = createSmtpPool({ rateLimit: 0, connectionTimeout: 2_000, greetingTimeout: 2_000 });
});
afterAll(async () => {
  await pool.closeAll();
  await capture.stop();
});

function message(messageId: string): OutgoingMessage {
  const firing = makeAlert(1, { fingerprint: 'a1b2c3', episode: 1_000, ruleId: 'kw-drop' });
  const event = makeAlert(2, { fingerprint: 'd4e5f6', ruleId: 'kw-drop' });
  return { alerts: [firing, event], totalCount: 2, hideLowStarText: false, messageId };
}

function channel(id: string, listUnsubscribe?: string) {
  return createEmailNotifier({
    id,
    smtpUrl: new Secret(capture.url),
    from: 'alerts@shelfwatch.test',
    to: ['author@example.com'],
    pool,
    ...(listUnsubscribe === undefined ? {} : { listUnsubscribe }),
  });
}

describe('alert email: why, and how to mute it', () => {
  it('ends with why it was sent, the silence command and the config key; a firing condition shows its snooze', async () => {
    await channel('team-mail').send(message('m-why'), signal);
    const [got] = await capture.waitForMessages(1, 5_000);
    const text = got?.mail.text ?? '';
    expect(text).toContain(
      'Why you got this: rule "kw-drop" raised "Keyword rank drop" (keyword_rank_drop) alerts for workspace "ws", and a route in the config (routes[].channels) sends such alerts to the channel "team-mail".',
    );
    expect(text).toContain(
      'To mute alerts like these for a while: shelfwatch silence add --workspace ws --kind keyword_rank_drop --rule kw-drop --for 24h --reason "…"',
    );
    expect(text).toContain('To stop them for good: remove "team-mail" from the matching routes[].channels');
    // Only the firing condition can be snoozed; the event (no episode) has no Snooze line.
    expect(text.match(/Snooze: shelfwatch snooze \w+/g)).toEqual(['Snooze: shelfwatch snooze a1b2c3']);
    expect(got?.mail.html).toContain('shelfwatch snooze a1b2c3');
    expect(got?.mail.html).toContain('Why you got this: rule &quot;kw-drop&quot;');
    // No endpoint honours an unsubscribe unless the channel names one: no header.
    expect(got?.raw.toString()).not.toMatch(/^List-Unsubscribe:/im);
  });

  it('carries List-Unsubscribe when the channel names an address that honours it', async () => {
    await channel('list-mail', 'https://lists.example.com/unsubscribe/shelfwatch').send(
      message('m-list'),
      signal,
    );
    const [, got] = await capture.waitForMessages(2, 5_000);
    expect(got?.raw.toString()).toMatch(
      /^List-Unsubscribe: <https:\/\/lists\.example\.com\/unsubscribe\/shelfwatch>\r$/m,
    );
  });

  it('the config refuses a List-Unsubscribe that is not https or mailto', () => {
    const raw = validRaw();
    raw.channels = [
      {
        id: 'mail',
        type: 'email',
        smtpUrl: 'smtp://127.0.0.1:2525',
        from: 'a@example.com',
        to: ['b@example.com'],
        listUnsubscribe: 'http://lists.example.com/u',
      },
    ];
    const result = parseConfig(raw);
    if (result.ok) throw new Error('expected a problem');
    expect(problemAt(result.problems, 'channels[0].listUnsubscribe').message).toMatch(
      /expected an https:\/\/ URL or a mailto: address/,
    );
  });
});
