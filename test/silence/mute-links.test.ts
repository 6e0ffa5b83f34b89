/**
 * Done-when of one-click mute (issue 25): an email's List-Unsubscribe (RFC 8058 one-click POST) and
 * a Slack message's mute link each silence the next matching alert on their channel, recorded as
 * silenced; a GET of either changes nothing; a replayed, forged or critical link changes nothing.
 * Real SMTP and HTTP receivers, the real delivery workers, the real console on real Redis.
 */
import type { FastifyInstance } from 'fastify';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Runtime } from '../../src/app/runtime.ts';
import { startWorkers } from '../../src/app/start.ts';
import { createEmailNotifier } from '../../src/channels/email.ts';
import { createSlackNotifier } from '../../src/channels/slack.ts';
import { createSmtpPool, type SmtpPool } from '../../src/channels/smtp-pool.ts';
import { Secret } from '../../src/config-kit/secret.ts';
import { buildConsole } from '../../src/console/server.ts';
import type { Alert } from '../../src/model/alert.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { Shutdown } from '../../src/ops/shutdown.ts';
import { type HttpReceiver, startHttpReceiver } from '../../src/tools/receivers/http.ts';
import { type SmtpReceiver, startSmtpReceiver } from '../../src/tools/receivers/smtp.ts';
import { makeAlert, settings } from '../deliver/pipeline-harness.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { waitFor } from '../helpers/wait.ts';
import { parseOrThrow } from '../poll/engine-harness.ts';

const PUBLIC = 'https://shelfwatch.example.com';
const HOST = 'shelfwatch.example.com';
const SECRET = 'mute-link-test-secret-0123456789abcdef';
const BOOK = 'B0CJ4XQ2ZK';
const OTHER_BOOK = 'B0DEF12345';

let smtp: SmtpReceiver;
let slack: HttpReceiver;
let pool: SmtpPool;
let dispatcher: Agent;
let runtime: Runtime;
let app: FastifyInstance;
const shutdown = new Shutdown(silentLogger());

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  slack = await startHttpReceiver();
  pool = createSmtpPool({ rateLimit: 0, connectionTimeout: 2_000, greetingTimeout: 2_000 });
  dispatcher = new Agent();
  const prefix = testPrefix('mute-links');
  testRedis(prefix);
  const config = parseOrThrow({
    redis: { url: redisUrl(), prefix },
    workspaces: [{ id: 'ws', baseUrl: 'http://127.0.0.1:9', apiKey: 'sk_unused', campaigns: [{ id: 'c' }] }],
    channels: [
      { id: 'mail', type: 'log' },
      { id: 'team-slack', type: 'log' },
    ],
    console: { publicUrl: PUBLIC, linkSecret: SECRET },
  });
  const mail = createEmailNotifier({
    id: 'mail',
    smtpUrl: new Secret(smtp.url),
    from: 'alerts@shelfwatch.test',
    to: ['author@example.com'],
    listUnsubscribe: 'mailto:unsubscribe@shelfwatch.test',
    pool,
  });
  const chat = createSlackNotifier({ id: 'team-slack', webhookUrl: new Secret(slack.url), dispatcher });
  runtime = new Runtime({
    config,
    logger: silentLogger(),
    version: 'test',
    notifiers: new Map([
      [mail.id, mail],
      [chat.id, chat],
    ]),
    channelSettings: new Map([
      ['mail', settings({ paceKey: 'mail', groupWaitMs: 50, groupIntervalMs: 50 })],
      ['team-slack', settings({ paceKey: 'team-slack', groupWaitMs: 50, groupIntervalMs: 50 })],
    ]),
  });
  await runtime.connect();
  shutdown.add('runtime', () => runtime.close());
  await startWorkers(runtime, shutdown, { reconcile: false });
  app = await buildConsole({
    runtime,
    token: 'mute-link-console-token-123456',
    host: '127.0.0.1',
    port: 8466,
  });
});

afterAll(async () => {
  await app?.close();
  await shutdown.run(5_000);
  await pool?.closeAll();
  await dispatcher?.close();
  await smtp?.stop();
  await slack?.close();
});

const send = (alerts: Alert[]) => runtime.pollDeps.alerts.enqueue(alerts);
const path = (url: string) => new URL(url).pathname;
/** The mrkdwn of a Slack payload's sections, where its links are. */
const slackText = (body: unknown) =>
  ((body as { blocks?: { text?: { text: string } }[] } | undefined)?.blocks ?? [])
    .map((b) => b.text?.text ?? '')
    .join('\n');
const get = (url: string) => app.inject({ method: 'GET', url: path(url), headers: { host: HOST } });

/** The RFC 8058 POST a mail provider makes: no cookie, no token, multipart/form-data. */
function oneClick(url: string) {
  const boundary = 'shelfwatchBoundary';
  return app.inject({
    method: 'POST',
    url: path(url),
    headers: { host: HOST, 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload: `--${boundary}\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--${boundary}--\r\n`,
  });
}

/** The confirmation page's button: a form POST without a session. */
function confirm(url: string) {
  return app.inject({
    method: 'POST',
    url: path(url),
    headers: { host: HOST, 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'confirm=yes',
  });
}

async function outcomes(fingerprint: string) {
  return (await runtime.alertLog.get(fingerprint))?.deliveries ?? {};
}

describe('mute links in messages', () => {
  it('an email one-click unsubscribe and a Slack mute link silence the next matching alert; GETs change nothing', async () => {
    const first = makeAlert(1, { subject: { asin: BOOK, marketplace: 'US', keyword: 'space opera' } });
    await send([first]);
    const [mail] = await smtp.waitForMessages(1, 10_000);
    const [post] = await slack.waitForMessages(1, 10_000);
    // Unfolded (RFC 5322: a CRLF before white space is removed), as a mail client reads headers.
    const raw = (mail?.raw.toString() ?? '').replace(/\r\n(?=[ \t])/g, '');

    // RFC 8058: one https URL (and our mailto beside it) in one header, and the exact Post header.
    const header = /^List-Unsubscribe: (.+)\r$/m.exec(raw)?.[1] ?? '';
    expect(header).toMatch(
      /^<https:\/\/shelfwatch\.example\.com\/mute\/[A-Za-z0-9_.-]+>, <mailto:unsubscribe@shelfwatch\.test>$/,
    );
    expect(raw.match(/^List-Unsubscribe:/gm)).toHaveLength(1);
    expect(raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r$/m);
    const unsubscribe = /<(https:[^>]+)>/.exec(header)?.[1] ?? '';
    // The footer offers the same three things in the body.
    expect(mail?.mail.text).toContain('Mute this book for a day: https://shelfwatch.example.com/mute/');
    expect(mail?.mail.text).toContain(
      'Mute "Keyword rank drop" alerts: https://shelfwatch.example.com/mute/',
    );
    expect(mail?.mail.text).toContain(`Unsubscribe this channel: ${unsubscribe}`);
    expect(mail?.mail.text).toContain(
      'Manage subscriptions and silences: https://shelfwatch.example.com/silences',
    );

    const section = JSON.stringify(post?.body);
    const slackMute = /<(https:\/\/shelfwatch\.example\.com\/mute\/[^|>]+)\|Mute this book for a day>/.exec(
      slackText(post?.body),
    )?.[1];
    expect(section).toContain('Mute this book for a day');
    if (slackMute === undefined) throw new Error('no mute link in the Slack message');

    // GETs (a link scanner, a preview) show a confirmation and change nothing.
    for (const url of [unsubscribe, slackMute]) {
      const page = await get(url);
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('<form method="post"');
      expect(page.headers['set-cookie']).toBeUndefined();
    }
    expect(await runtime.silences.all()).toEqual([]);

    // The POSTs, without a session or CSRF token: the signed link is the authority.
    const unsubscribed = await oneClick(unsubscribe);
    expect(unsubscribed.statusCode).toBe(200);
    expect(unsubscribed.body).toContain('Stop every alert sent to the channel &quot;mail&quot;');
    const muted = await confirm(slackMute);
    expect(muted.statusCode).toBe(200);
    const silences = await runtime.silences.all();
    expect(
      silences.map((s) => s.matchers).sort((a, b) => String(a.channel).localeCompare(String(b.channel))),
    ).toEqual([
      { channel: 'mail', severity: ['info', 'warning'] },
      { workspace: 'ws', asin: [BOOK], channel: 'team-slack', severity: ['info', 'warning'] },
    ]);
    const viaMail = silences.find((s) => s.matchers.channel === 'mail');
    expect(viaMail?.createdBy).toBe('mute link in a message to "mail"');
    expect(viaMail?.reason).toContain("from the mail client's unsubscribe button (RFC 8058)");
    const viaSlack = silences.find((s) => s.matchers.channel === 'team-slack');
    expect(viaSlack?.reason).toBe(
      `mute this book for a day, confirmed on the link's page (alert: ${first.title})`,
    );
    expect((viaSlack?.endsAt ?? 0) - (viaSlack?.createdAt ?? 0)).toBe(86_400_000);
    // The alert log says, beside the alert whose link was used, who muted and why.
    const noted = await runtime.alertLog.get(first.fingerprint);
    expect(noted?.muted?.map((m) => m.by).sort()).toEqual([
      'mute link in a message to "mail"',
      'mute link in a message to "team-slack"',
    ]);

    // A replay changes nothing.
    const replay = await oneClick(unsubscribe);
    expect(replay.statusCode).toBe(409);
    expect(replay.body).toContain('Link already used');
    expect(await runtime.silences.all()).toHaveLength(2);

    // The next alert about the book: silenced on both channels, recorded as silenced, not sent.
    const next = makeAlert(2, { subject: { asin: BOOK, marketplace: 'US', keyword: 'dark matter' } });
    // Another book's alert still reaches Slack (its mute was this book's), and only Slack.
    const other = makeAlert(3, { subject: { asin: OTHER_BOOK, marketplace: 'US', keyword: 'nebula' } });
    await send([next, other]);
    await slack.waitForMessages(2, 10_000);
    const silenced = await waitFor(
      'the next alert silenced on both channels',
      async () => {
        const o = await outcomes(next.fingerprint);
        return o.mail === 'silenced' && o['team-slack'] === 'silenced' ? o : undefined;
      },
      10_000,
    );
    expect(silenced).toEqual({ mail: 'silenced', 'team-slack': 'silenced' });
    expect(
      await waitFor(
        // The outcome is logged after the channel confirmed: Slack's request can arrive first.
        'the other book silenced on mail and delivered to Slack',
        async () => {
          const o = await outcomes(other.fingerprint);
          return o.mail === 'silenced' && o['team-slack'] === 'delivered';
        },
        10_000,
      ),
    ).toBe(true);
    expect(await outcomes(other.fingerprint)).toEqual({ mail: 'silenced', 'team-slack': 'delivered' });
    expect(smtp.messages).toHaveLength(1);
    expect(JSON.stringify(slack.requests[1]?.body)).toContain(other.title);
    expect(JSON.stringify(slack.requests.map((r) => r.body))).not.toContain(next.title);
    const records = await runtime.silences.silencedBetween(0, Date.now() + 1);
    expect(records.map((r) => r.alert.fingerprint)).toContain(next.fingerprint);
  });

  it('a critical alert carries a link that explains why it cannot be muted, and mutes nothing', async () => {
    const before = (await runtime.silences.all()).length;
    const critical = makeAlert(10, {
      kind: 'source_health',
      severity: 'critical',
      subject: { targetId: 'rankings/ws' },
      title: 'Source failing: rankings',
    });
    await send([critical]);
    const requests = await slack.waitForMessages(3, 10_000);
    const text = JSON.stringify(requests[2]?.body);
    const link = /<(https:\/\/shelfwatch\.example\.com\/mute\/[^|>]+)\|Why this cannot be muted>/.exec(
      slackText(requests[2]?.body),
    )?.[1];
    expect(text).toContain('Why this cannot be muted');
    if (link === undefined) throw new Error('no link on the critical alert');
    const page = await get(link);
    expect(page.statusCode).toBe(409);
    expect(page.body).toContain('cannot be muted from a message');
    expect(page.body).not.toContain('<form');
    expect((await confirm(link)).statusCode).toBe(409);
    expect(await runtime.silences.all()).toHaveLength(before);
  });

  it('a forged or cut link is refused with a page that says so, and nothing changes', async () => {
    const before = (await runtime.silences.all()).length;
    const [mail] = smtp.messages;
    const raw = (mail?.raw.toString() ?? '').replace(/\r\n(?=[ \t])/g, '');
    const url = /<(https:[^>]+)>/.exec(/^List-Unsubscribe: (.+)\r$/m.exec(raw)?.[1] ?? '')?.[1] ?? '';
    const token = path(url).slice('/mute/'.length);
    const [body = '', sig = ''] = token.split('.');
    // Widen the claim (another channel) and keep the old signature: the HMAC no longer matches.
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>;
    const forged = `${Buffer.from(JSON.stringify({ ...claims, ch: 'team-slack', n: 'fresh' })).toString('base64url')}.${sig}`;
    for (const [bad, status, text] of [
      [forged, 400, 'not signed by this shelfwatch'],
      [body, 400, 'not a complete mute link'],
    ] as const) {
      const page = await app.inject({ method: 'POST', url: `/mute/${bad}`, headers: { host: HOST } });
      expect(page.statusCode).toBe(status);
      expect(page.body).toContain(text);
    }
    expect(await runtime.silences.all()).toHaveLength(before);
  });
});
