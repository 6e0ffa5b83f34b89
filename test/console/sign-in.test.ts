/**
 * People's sign-in (issue 25 item 2): a one-time link by email through the people's SMTP server (a
 * local receiver), refused when forged, expired or replayed; a personal token; roles limit writes;
 * link requests throttled per client and per account. Real Redis, the real server through inject.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SmtpReceiver, startSmtpReceiver } from '../../src/tools/receivers/smtp.ts';
import { HOST, SECRETS, startConsoleRuntime } from './harness.ts';

let smtp: SmtpReceiver;
let env: Awaited<ReturnType<typeof startConsoleRuntime>>;
const VIEWER_TOKEN = 'viewer-personal-token-0123456789';

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  env = await startConsoleRuntime('console-sign-in', {
    channels: [
      { id: 'slack-main', type: 'slack', webhookUrl: SECRETS.webhook },
      { id: 'mail', type: 'email', smtpUrl: smtp.url, from: 'alerts@example.com', to: ['team@example.com'] },
    ],
    people: {
      accounts: [
        { id: 'ana', name: 'Ana', email: 'ana@example.com', role: 'member' },
        { id: 'vic', name: 'Vic', email: 'vic@example.com', role: 'viewer', token: VIEWER_TOKEN },
      ],
    },
  });
});
afterAll(async () => {
  await env?.close();
  await smtp?.stop();
});

const form = (url: string, payload: string, remoteAddress = '203.0.113.1', cookie?: string) =>
  env.app.inject({
    method: 'POST',
    url,
    remoteAddress,
    headers: {
      host: HOST,
      'content-type': 'application/x-www-form-urlencoded',
      ...(cookie === undefined ? {} : { cookie }),
    },
    payload,
  });

async function linkFor(email: string, remoteAddress = '203.0.113.1'): Promise<string> {
  const before = smtp.messages.length;
  const asked = await form('/login/link', `email=${encodeURIComponent(email)}`, remoteAddress);
  expect(asked.statusCode).toBe(200);
  const mail = (await smtp.waitForMessages(before + 1, 10_000))[before];
  const match = /\/login\/link\?t=([^\s]+)/.exec(mail?.mail.text ?? '');
  if (match?.[1] === undefined) throw new Error('no link in the email');
  return decodeURIComponent(match[1]);
}

const cookieOf = (res: { headers: Record<string, unknown> }) =>
  String(res.headers['set-cookie']).split(';')[0] ?? '';

describe('sign-in links', () => {
  it('mails a link; a GET only confirms, the POST signs in once; a replay is refused and changes nothing', async () => {
    const token = await linkFor('Ana@Example.com');
    expect(smtp.messages.at(-1)?.to).toEqual(['ana@example.com']);
    const shown = await env.app.inject({
      url: `/login/link?t=${encodeURIComponent(token)}`,
      headers: { host: HOST },
    });
    expect(shown.statusCode).toBe(200);
    expect(shown.headers['set-cookie']).toBeUndefined();
    const used = await form('/login/link/use', `t=${encodeURIComponent(token)}`);
    expect(used.statusCode).toBe(303);
    const home = await env.app.inject({ url: '/', headers: { host: HOST, cookie: cookieOf(used) } });
    expect(home.statusCode).toBe(200);
    const replay = await form('/login/link/use', `t=${encodeURIComponent(token)}`);
    expect(replay.statusCode).toBe(400);
    expect(replay.body).toContain('already used');
    expect(replay.headers['set-cookie']).toBeUndefined();
  });

  it('a forged or altered link is refused with a page saying so', async () => {
    const token = await linkFor('ana@example.com', '203.0.113.2');
    const forged = token.replace(/^ana\./, 'vic.');
    const res = await form('/login/link/use', `t=${encodeURIComponent(forged)}`, '203.0.113.2');
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('not signed by this console');
    const get = await env.app.inject({ url: '/login/link?t=nonsense', headers: { host: HOST } });
    expect(get.statusCode).toBe(400);
  });

  it('an expired link is refused', async () => {
    const token = await linkFor('ana@example.com', '203.0.113.3');
    const [subject, , nonce] = token.split('.');
    // An expiry cannot be edited without breaking the signature: the console's clock moves on instead.
    const clock = env.runtime.clock as { now: () => number };
    const realNow = clock.now;
    clock.now = () => realNow() + 16 * 60_000;
    try {
      const res = await form('/login/link/use', `t=${encodeURIComponent(token)}`, '203.0.113.3');
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain('expired');
    } finally {
      clock.now = realNow;
    }
    expect(subject).toBe('ana');
    expect(nonce).toHaveLength(24);
  });

  it('an unknown address gets the same answer and no email', async () => {
    const before = smtp.messages.length;
    const res = await form('/login/link', 'email=nobody%40example.com', '203.0.113.4');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('If this address belongs to an account');
    expect(smtp.messages).toHaveLength(before);
  });

  it('links for one account are throttled after 3 in 15 minutes, from any client', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1)
      statuses.push((await form('/login/link', 'email=vic%40example.com', `198.51.100.${i}`)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });
});

describe('personal tokens and roles', () => {
  it('a viewer signs in with their token and may not write', async () => {
    const res = await form('/login', `token=${VIEWER_TOKEN}`, '192.0.2.10');
    expect(res.statusCode).toBe(303);
    const cookie = cookieOf(res);
    const page = await env.app.inject({ url: '/silences', headers: { host: HOST, cookie } });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
    const write = await form(
      '/silences',
      `_csrf=${csrf}&keyword=x&duration=1h&reason=r`,
      '192.0.2.10',
      cookie,
    );
    expect(write.statusCode).toBe(403);
    expect(write.body).toContain('role does not allow');
  });
});
