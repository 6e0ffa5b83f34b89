import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmailNotifier } from '../../src/channels/email.ts';
import { DeliveryError, type Notifier, type OutgoingMessage } from '../../src/channels/notifier.ts';
import {
  createSmtpPool,
  type SmtpPool,
  SmtpSendError,
  smtpDeliveryError,
} from '../../src/channels/smtp-pool.ts';
import { Secret } from '../../src/config-kit/secret.ts';
import type { Alert } from '../../src/model/alert.ts';
import { createLogger } from '../../src/ops/logger.ts';
import { type SmtpReceiver, startSmtpReceiver } from '../../src/tools/receivers/smtp.ts';

const FROM = 'alerts@shelfwatch.test';
const TO = 'author@example.com';
const signal = new AbortController().signal;

function reviewAlert(n: number): Alert {
  return {
    fingerprint: `fp${n}`,
    workspace: 'acme',
    ruleId: 'reviews',
    kind: 'review_new',
    severity: 'info',
    status: 'firing',
    subject: { asin: 'B0CJ4XQ2ZK', campaignId: 'camp-1', reviewId: `r-${n}` },
    title: `New 5★ Amazon review of B0CJ4XQ2ZK (campaign camp-1) #${n}`,
    facts: {
      asin: 'B0CJ4XQ2ZK',
      platform: 'amazon',
      rating: 5,
      reviewer: 'Zoë <Reader>',
      reviewTitle: 'Wonderful 📚',
      body: 'Could not put it down & read it twice.',
      url: 'https://www.amazon.com/review/R1',
      lowStar: false,
    },
    observedAt: Date.UTC(2026, 10, 21, 14),
  };
}

let seq = 0;
function message(alerts = [reviewAlert(++seq)]): OutgoingMessage {
  return { alerts, totalCount: alerts.length, hideLowStarText: false, messageId: `msg-${++seq}` };
}

async function failure(promise: Promise<unknown>): Promise<DeliveryError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof DeliveryError)) throw new Error(`expected a DeliveryError, got ${inspect(error)}`);
  return error;
}

function logSink(): { logger: ReturnType<typeof createLogger>; text: () => string } {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { logger: createLogger({ level: 'debug', destination }), text: () => chunks.join('') };
}

let capture: SmtpReceiver;
let pool: SmtpPool;
let channel: Notifier;

beforeAll(async () => {
  capture = await startSmtpReceiver();
  // No rate limit here: tests send in bursts and must not wait on the default 5 a second.
  pool = createSmtpPool({ rateLimit: 0, connectionTimeout: 2_000, greetingTimeout: 2_000 });
  channel = createEmailNotifier({ id: 'mail', smtpUrl: new Secret(capture.url), from: FROM, to: [TO], pool });
});

afterAll(async () => {
  await pool.closeAll();
  await capture.stop();
});

describe('email channel over SMTP', () => {
  it('resolves once the server took the message: multipart/alternative with text and html', async () => {
    const sent = message();
    await channel.send(sent, signal);
    const [got] = (await capture.waitForMessages(capture.messages.length, 2_000)).slice(-1);
    if (got === undefined) throw new Error('no message captured');
    expect(got.from).toBe(FROM);
    expect(got.to).toEqual([TO]);
    const contentType = got.mail.headers.get('content-type') as { value: string };
    expect(contentType.value).toBe('multipart/alternative');
    expect(got.mail.subject).toBe(sent.alerts[0]?.title);
    expect(got.mail.messageId).toBe(`<${sent.messageId}@shelfwatch>`);
    expect(got.mail.headers.get('auto-submitted')).toBe('auto-generated');
    expect(got.mail.headers.get('x-shelfwatch-message-id')).toBe(sent.messageId);
    expect(got.mail.headers.get('x-shelfwatch-workspace')).toBe('acme');
    expect(got.mail.text).toContain('Reviewer: Zoë <Reader>');
    expect(got.mail.text).toContain('Wonderful 📚');
    expect(got.mail.html).toContain('Zoë &lt;Reader&gt;');
    expect(got.mail.html).toContain('read it twice');
    expect(got.mail.html).toContain('href="https://www.amazon.com/review/R1"');
  });

  it('hostile review text arrives escaped in the html and verbatim, truncated, in the text', async () => {
    const body = `<script>alert(1)</script> <!channel> "onerror=x مرحبا \u202Eabc 👩‍👩‍👧 ${'z'.repeat(10_000)}`;
    const hostile = reviewAlert(++seq);
    hostile.facts = { ...hostile.facts, body, reviewTitle: `"><img src=x onerror=alert(1)>` };
    await channel.send(message([hostile]), signal);
    const got = capture.messages.at(-1)?.mail;
    expect(got?.text).toContain(`${body.replace('\u202E', '').slice(0, 1_890)}`);
    expect(got?.text).toContain(`${'z'.repeat(100)}…`);
    expect(got?.text).not.toContain('z'.repeat(2_000));
    expect(got?.text).toContain(`"><img src=x onerror=alert(1)>`);
    const html = got?.html || '';
    expect(html).toContain(
      '&lt;script&gt;alert(1)&lt;/script&gt; &lt;!channel&gt; &quot;onerror=x مرحبا abc 👩‍👩‍👧',
    );
    expect(html).not.toMatch(/<script|<img|<!channel>|"onerror/);
  });

  it('no bidi control leaves: subject, text part and html part as received (issue 27)', async () => {
    const hostile = reviewAlert(++seq);
    hostile.title = `Launch \u202Egnp.exe\u2066 review \u200F`;
    hostile.facts = { ...hostile.facts, body: `great \u202Ebook\u2069 \u200E`, reviewTitle: 'rtl \u2067x' };
    await channel.send(message([hostile]), signal);
    const got = capture.messages.at(-1)?.mail;
    const bidi = /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
    expect(got?.subject).toContain('gnp.exe');
    for (const [part, value] of Object.entries({ subject: got?.subject, text: got?.text, html: got?.html }))
      expect(value ?? '', part).not.toMatch(bidi);
  });

  it('a name or title cannot print a line of its own; the body keeps its quoted lines', async () => {
    const forged = reviewAlert(++seq);
    forged.facts = {
      ...forged.facts,
      reviewer: 'Ann\n\n[CRITICAL] Royalties fell to 0\r\n  Sign in: https://evil.example/login',
      reviewTitle: 'Fine\u2028[WARNING] Account suspended\u0000\u001b[2J',
      body: 'First line\n[CRITICAL] quoted, not an alert',
      publishedAt: Date.UTC(2026, 10, 25, 9, 30),
    };
    await channel.send(message([forged]), signal);
    const got = capture.messages.at(-1)?.mail;
    const lines = (got?.text || '').split('\n');
    // The only line that starts like an alert is the alert's own.
    expect(lines.filter((line) => /^\s*\[(CRITICAL|WARNING|INFO)/.test(line))).toEqual([
      `[INFO] ${forged.title}`,
    ]);
    expect(lines).toContain(
      '  Reviewer: Ann [CRITICAL] Royalties fell to 0 Sign in: https://evil.example/login',
    );
    expect(lines).toContain('  Review title: Fine [WARNING] Account suspended[2J');
    expect(lines).toContain('    > [CRITICAL] quoted, not an alert');
    // A timestamp reads as a time, not as a number with thousands separators.
    expect(lines.find((l) => l.startsWith('  Published: '))).toMatch(
      /^ {2}Published: 25 Nov 2026, \d{2}:\d{2} [A-Z]{3,4}$/,
    );
    const html = got?.html || '';
    expect(html).toContain(
      '<bdi>Ann [CRITICAL] Royalties fell to 0 Sign in: https://evil.example/login</bdi>',
    );
    expect(html).toContain('<bdi>Fine [WARNING] Account suspended[2J</bdi>');
    expect(html).toContain('First line<br>[CRITICAL] quoted, not an alert');
  });

  it('550 to the only recipient: final, and the channel is broken', async () => {
    capture.refuseNext(1, 'rcpt', 550, '5.1.1 No such user');
    const error = await failure(channel.send(message(), signal));
    expect(error).toMatchObject({ channelId: 'mail', retryable: false, disableChannel: true, status: 550 });
    expect(error.message).toContain('550 5.1.1 No such user');
  });

  it('553 to the sender: final, and the channel is broken', async () => {
    capture.refuseNext(1, 'mail', 553, '5.7.1 Sender not allowed');
    const error = await failure(channel.send(message(), signal));
    expect(error).toMatchObject({ retryable: false, disableChannel: true, status: 553 });
  });

  it('554 to the content: final for this message, the channel stays', async () => {
    capture.refuseNext(1, 'data', 554, '5.6.0 Message refused');
    const error = await failure(channel.send(message(), signal));
    expect(error).toMatchObject({ retryable: false, disableChannel: false, status: 554 });
    // The next message goes through on the same channel.
    const before = capture.messages.length;
    await channel.send(message(), signal);
    expect(capture.messages).toHaveLength(before + 1);
  });

  it('451 at RCPT or DATA: retryable, and the retry goes through', async () => {
    for (const stage of ['rcpt', 'data'] as const) {
      capture.refuseNext(1, stage, 451, '4.7.1 Greylisted, try later');
      const sent = message();
      const error = await failure(channel.send(sent, signal));
      expect(error).toMatchObject({ retryable: true, disableChannel: false, status: 451 });
      await channel.send(sent, signal);
      expect(capture.messages.at(-1)?.mail.messageId).toBe(`<${sent.messageId}@shelfwatch>`);
    }
  });

  it('partly refused recipients: resolves for the others and logs the refused ones', async () => {
    const logs = logSink();
    capture.refuseRecipient('gone@example.com', 550);
    const two = createEmailNotifier({
      id: 'two',
      smtpUrl: new Secret(capture.url),
      from: FROM,
      to: [TO, 'gone@example.com'],
      pool,
      logger: logs.logger,
    });
    await two.send(message(), signal);
    expect(capture.messages.at(-1)?.to).toEqual([TO]);
    const line = JSON.parse(logs.text().trim()) as { rejected: string[]; channelId: string };
    expect(line).toMatchObject({ channelId: 'two', rejected: ['gone@example.com'] });
  });

  it('server down: retryable; back up: the same pool delivers again', async () => {
    await channel.send(message(), signal); // leaves an idle pooled connection behind
    await capture.stop();
    const error = await failure(channel.send(message(), signal));
    expect(error.retryable).toBe(true);
    expect(error.disableChannel).toBe(false);
    expect(error.cause).toBeInstanceOf(SmtpSendError);
    await capture.start();
    const before = capture.messages.length;
    await channel.send(message(), signal);
    expect(capture.messages).toHaveLength(before + 1);
  });

  it('an aborted send is retryable', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await failure(channel.send(message(), controller.signal));
    expect(error.retryable).toBe(true);
  });
});

describe('timeouts', () => {
  let silent: Server;
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    // Accepts TCP connections and never greets: a hung mail server.
    silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    silent.close();
    await once(silent, 'close');
  });

  it('a server that never answers fails the send as retryable, within the greeting timeout', async () => {
    const fast = createSmtpPool({ greetingTimeout: 300, connectionTimeout: 300, socketTimeout: 300 });
    const { port } = silent.address() as { port: number };
    const hung = createEmailNotifier({
      id: 'hung',
      smtpUrl: new Secret(`smtp://127.0.0.1:${port}?ignoreTLS=true`),
      from: FROM,
      to: [TO],
      pool: fast,
    });
    const started = Date.now();
    const error = await failure(hung.send(message(), signal));
    expect(error.retryable).toBe(true);
    expect((error.cause as SmtpSendError).code).toBe('ETIMEDOUT');
    expect(Date.now() - started).toBeLessThan(5_000);
    await fast.closeAll();
  });
});

describe('pool', () => {
  it('channels with the same URL share one transport and its connections', async () => {
    const shared = createSmtpPool({ rateLimit: 0 });
    const url = `${capture.url}&maxConnections=1`;
    const a = createEmailNotifier({ id: 'a', smtpUrl: new Secret(url), from: FROM, to: [TO], pool: shared });
    const b = createEmailNotifier({ id: 'b', smtpUrl: new Secret(url), from: FROM, to: [TO], pool: shared });
    const connectionsBefore = capture.connections;
    const messagesBefore = capture.messages.length;
    await Promise.all([a.send(message(), signal), b.send(message(), signal), a.send(message(), signal)]);
    await b.send(message(), signal);
    expect(capture.messages).toHaveLength(messagesBefore + 4);
    expect(shared.size).toBe(1);
    expect(shared.transportFor(new Secret(url))).toBe(shared.transportFor(new Secret(url)));
    expect(capture.connections - connectionsBefore).toBe(1);
    shared.transportFor(new Secret(capture.url));
    expect(shared.size).toBe(2);
    await shared.closeAll();
    expect(shared.size).toBe(0);
    const error = await failure(a.send(message(), signal));
    expect(error.retryable).toBe(true);
  });

  it('sendMail sends any nodemailer message, inline CID images included', async () => {
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
      'base64',
    );
    await pool.sendMail(new Secret(capture.url), {
      from: FROM,
      to: TO,
      subject: 'Daily digest',
      text: 'See the chart',
      html: '<p>Chart: <img src="cid:chart@shelfwatch" alt="chart"></p>',
      attachments: [
        { filename: 'chart.png', content: png, cid: 'chart@shelfwatch', contentType: 'image/png' },
      ],
    });
    const got = capture.messages.at(-1);
    expect(got?.mail.subject).toBe('Daily digest');
    expect(got?.mail.attachments[0]?.contentId).toBe('<chart@shelfwatch>');
    expect(got?.mail.attachments[0]?.content.equals(png)).toBe(true);
  });

  it('refuses to read files or URLs named as content', async () => {
    const error = await pool
      .sendMail(new Secret(capture.url), {
        from: FROM,
        to: TO,
        subject: 'x',
        text: 'x',
        attachments: [{ filename: 'passwd', path: '/etc/passwd' }],
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(SmtpSendError);
    expect(error).toMatchObject({ code: 'ESTREAM', message: 'File access rejected for /etc/passwd' });
    expect(smtpDeliveryError('digest', error).retryable).toBe(false);
  });
});

describe('secrets', () => {
  const USER = 'shelf-alerts';
  const PASS = 'pa55:w@rd/S3cret!';
  let guarded: SmtpReceiver;
  beforeAll(async () => {
    guarded = await startSmtpReceiver({ auth: { user: USER, pass: PASS } });
  });
  afterAll(() => guarded.stop());

  function leaks(text: string, url: string): string[] {
    return [PASS, encodeURIComponent(PASS), 'wrong-Pa55word', url].filter((s) => text.includes(s));
  }

  it('a refused login is final and breaks the channel, and no error text holds the URL or password', async () => {
    const logs = logSink();
    const url = guarded.urlWithAuth(USER, 'wrong-Pa55word');
    const secrets = createSmtpPool({ rateLimit: 0 });
    const bad = createEmailNotifier({
      id: 'bad',
      smtpUrl: new Secret(url),
      from: FROM,
      to: [TO],
      pool: secrets,
    });
    const error = await failure(bad.send(message(), signal));
    expect(error).toMatchObject({ retryable: false, disableChannel: true, status: 535 });
    logs.logger.error({ err: error }, 'delivery failed');
    for (const text of [
      error.message,
      String(error),
      error.stack ?? '',
      inspect(error, { depth: 10 }),
      JSON.stringify(error),
      logs.text(),
    ]) {
      expect(leaks(text, url)).toEqual([]);
      expect(text).not.toContain(USER);
    }
    await secrets.closeAll();
  });

  it('with the right login the mail goes through, and the logs hold no credentials', async () => {
    const logs = logSink();
    const url = guarded.urlWithAuth(USER, PASS);
    const secrets = createSmtpPool({ rateLimit: 0 });
    guarded.refuseRecipient('gone@example.com', 550);
    const good = createEmailNotifier({
      id: 'good',
      smtpUrl: new Secret(url),
      from: FROM,
      to: [TO, 'gone@example.com'],
      pool: secrets,
      logger: logs.logger,
    });
    await good.send(message(), signal);
    expect(guarded.messages).toHaveLength(1);
    expect(logs.text()).toContain('gone@example.com');
    expect(leaks(logs.text(), url)).toEqual([]);
    expect(inspect(good, { depth: 10 })).not.toContain(PASS);
    await secrets.closeAll();
  });

  it('credentials echoed back by the server are scrubbed from the error', async () => {
    const url = guarded.urlWithAuth(USER, PASS);
    const secrets = createSmtpPool({ rateLimit: 0 });
    const echo = createEmailNotifier({
      id: 'echo',
      smtpUrl: new Secret(url),
      from: FROM,
      to: [TO],
      pool: secrets,
    });
    guarded.refuseNext(1, 'rcpt', 550, `no relay for ${USER} with ${PASS}`);
    const error = await failure(echo.send(message(), signal));
    expect(error.message).toContain('no relay for [redacted] with [redacted]');
    expect(leaks(inspect(error, { depth: 10 }), url)).toEqual([]);
    await secrets.closeAll();
  });
});
