/**
 * The console over HTTP (fastify's inject, a real Redis): access (token, session cookie, CSRF,
 * Host), bad input (401, 403, 404, 400 with the field), hostile text shown as text and no secret
 * in any page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BSR_SERIES } from '../../src/history/store.ts';
import { ASIN, alertOf, HOST, HOSTILE, login, SECRETS, startConsoleRuntime } from './harness.ts';

let env: Awaited<ReturnType<typeof startConsoleRuntime>>;
let session: { cookie: string; csrf: string };

beforeAll(async () => {
  env = await startConsoleRuntime('console-http');
  const hostile = HOSTILE.map((title, i) =>
    alertOf(100 + i, { title, subject: { asin: ASIN, marketplace: 'US', keyword: title } }),
  );
  await env.runtime.alertLog.record(
    [...hostile, alertOf(1)].map((alert) => ({ alert, channels: ['slack-main'] })),
  );
  session = await login(env.app);
});
afterAll(async () => env?.close());

const get = (url: string, cookie = session.cookie) =>
  env.app.inject({ url, headers: { host: HOST, ...(cookie === '' ? {} : { cookie }) } });
const post = (url: string, form: Record<string, string>) =>
  env.app.inject({
    method: 'POST',
    url,
    headers: { host: HOST, cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(form).toString(),
  });

describe('access', () => {
  it('without a session every page is a 401 login page with no data', async () => {
    for (const url of [
      '/',
      '/alerts',
      '/silences',
      '/dead-letters',
      `/books/main/${ASIN}/US`,
      '/queues',
      '/export/main/alerts.csv',
      `/books/main/${ASIN}/US/export/ranks.json`,
    ]) {
      const res = await get(url, '');
      expect(res.statusCode, url).toBe(401);
      expect(res.body).toContain('Console token');
      expect(res.body).not.toContain('slack-main');
      expect(res.body).not.toContain('space opera');
    }
  });

  it('a wrong token is refused; the right one gives an HttpOnly, SameSite=Strict cookie', async () => {
    const wrong = await env.app.inject({
      method: 'POST',
      url: '/login',
      headers: { host: HOST, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'token=nope',
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const ok = await env.app.inject({
      method: 'POST',
      url: '/login',
      headers: { host: HOST, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'token=console-test-token-1234567890',
    });
    const cookie = String(ok.headers['set-cookie']);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const forged = `${cookie.split(';')[0]?.slice(0, -3)}abc`;
    expect((await get('/', forged)).statusCode).toBe(401);
  });

  it('answers only to its own address in Host', async () => {
    const res = await env.app.inject({
      url: '/',
      headers: { host: 'attacker.example:8466', cookie: session.cookie },
    });
    expect(res.statusCode).toBe(421);
    expect((await get('/')).statusCode).toBe(200);
  });

  it('a write without the CSRF token is refused with 403 and changes nothing', async () => {
    const res = await post('/silences', { asin: ASIN, duration: '2h', reason: 'launch' });
    expect(res.statusCode).toBe(403);
    const wrong = await post('/silences', { asin: ASIN, duration: '2h', reason: 'launch', _csrf: 'x' });
    expect(wrong.statusCode).toBe(403);
    expect(await env.runtime.silences.all()).toHaveLength(0);
  });

  it('pages forbid inline scripts (CSP) and are not cached', async () => {
    const res = await get('/');
    expect(res.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(res.headers['content-security-policy']).not.toMatch(/unsafe-inline/);
    expect(res.headers['cache-control']).toBe('no-store');
  });
});

describe('pages and bad input', () => {
  it('adds a silence through the form and expires it', async () => {
    const res = await post('/silences', {
      asin: ASIN,
      duration: '2h',
      reason: 'launch week',
      _csrf: session.csrf,
    });
    expect(res.statusCode).toBe(303);
    const [silence] = await env.runtime.silences.all();
    expect(silence?.matchers).toEqual({ asin: [ASIN] });
    expect(silence?.endsAt).toBe((silence?.startsAt ?? 0) + 7_200_000);
    const list = await get('/silences');
    expect(list.body).toContain('launch week');
    const expired = await post(`/silences/${silence?.id}/expire`, { _csrf: session.csrf });
    expect(expired.statusCode).toBe(303);
    expect((await env.runtime.silences.get(silence?.id ?? ''))?.expiredAt).toBeDefined();
  });

  it('a malformed silence form is refused with the field and the reason', async () => {
    const res = await post('/silences', { asin: 'nope', duration: 'soon', _csrf: session.csrf });
    expect(res.statusCode).toBe(400);
    expect(res.body).toMatch(/<strong>asin<\/strong>: &quot;nope&quot; is not an ASIN/);
    expect(res.body).toMatch(/<strong>duration<\/strong>/);
    expect(res.body).toMatch(/<strong>reason<\/strong>/);
  });

  it('a malformed filter is refused with the field and the reason', async () => {
    const res = await get('/alerts?kind=nope&severity=loud');
    expect(res.statusCode).toBe(400);
    expect(res.body).toMatch(/<strong>kind<\/strong>/);
    expect(res.body).toMatch(/<strong>severity<\/strong>/);
    const unknownKey = await get('/alerts?colour=red');
    expect(unknownKey.statusCode).toBe(400);
    expect(unknownKey.body).toContain('colour');
  });

  it('filters alerts and shows their deliveries', async () => {
    const res = await get('/alerts?kind=keyword_rank_drop&channel=slack-main&outcome=queued');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('space opera fell to #1');
    expect(res.body).toContain('slack-main: queued');
    const none = await get('/alerts?outcome=delivered');
    expect(none.body).toContain('No alerts match.');
  });

  it("draws the book's BSR chart from the history store of hourly points", async () => {
    const history = env.runtime.pollDeps.history;
    const now = Date.now();
    const hourAgo = Math.floor(now / 3_600_000) * 3_600_000 - 3_600_000;
    await history?.record(
      { workspace: 'main', asin: ASIN, marketplace: 'US' },
      [
        {
          series: BSR_SERIES,
          points: [
            { at: hourAgo - 3_600_000, rank: 1234 },
            { at: hourAgo, rank: 5678 },
          ],
        },
      ],
      now,
    );
    const res = await get(`/books/main/${ASIN}/US`);
    expect(res.body).toMatch(/BSR of B0CJ4XQ2ZK US, [^"]+: #1,234 on [^"]+ to #5,678 on/);
    // The viewer's locale reads the same values: German groups thousands with a dot.
    const german = await env.app.inject({
      url: `/books/main/${ASIN}/US`,
      headers: { host: HOST, cookie: session.cookie, 'accept-language': 'de-DE,de;q=0.9' },
    });
    const csv = await get('/export/main/ranks.csv?range=all');
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toBe('attachment; filename="main-ranks.csv"');
    expect(csv.body).toMatch(new RegExp(`\r\nmain,${ASIN},US,bsr,,[^,]+,hour,1234,,\r\n`));
    expect((await get('/export/main/everything.csv')).statusCode).toBe(404);
    expect((await get('/export/nobody/ranks.csv')).statusCode).toBe(404);
    expect(german.body).toMatch(/#1\.234 on [^"]+ to #5\.678 on/);
  });

  it('mounts Bull Board read-only on the poll and deliver queues', async () => {
    const board = await get('/queues');
    expect(board.statusCode).toBe(200);
    expect(board.body).toContain('shelfwatch queues');
    // Its <base href> must be allowed there (and only there), or every asset 404s.
    expect(board.body).toMatch(/<base href=/);
    expect(String(board.headers['content-security-policy'])).toContain("base-uri 'self'");
    expect(String((await get('/')).headers['content-security-policy'])).toContain("base-uri 'none'");
    const api = await get('/queues/api/queues');
    expect(api.statusCode).toBe(200);
    const names = (JSON.parse(api.body) as { queues: { name: string; readOnlyMode: boolean }[] }).queues;
    expect(names.map((q) => [q.name, q.readOnlyMode]).sort()).toEqual([
      ['deliver', true],
      ['poll', true],
    ]);
  });

  it('unknown alerts, books and pages are 404 pages', async () => {
    expect((await get('/alerts/no-such-alert')).statusCode).toBe(404);
    expect((await get('/books/main/B000000000/US')).statusCode).toBe(404);
    expect((await get('/nowhere')).statusCode).toBe(404);
    const detail = await get('/alerts/fp-console-1');
    expect(detail.statusCode).toBe(200);
    expect(detail.body).toContain('slack-main');
  });

  it('hostile text is shown as text on every page, and no secret appears anywhere', async () => {
    const pages = [
      '/',
      '/alerts',
      '/alerts/fp-console-100',
      '/alerts/fp-console-101',
      `/books/main/${ASIN}/US`,
      '/silences',
      '/dead-letters',
    ];
    for (const url of pages) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).not.toContain('<script>alert');
      expect(res.body, url).not.toContain('<img src=x');
      expect(res.body, url).not.toContain('\u202E');
      for (const secret of Object.values(SECRETS)) expect(res.body, url).not.toContain(secret);
      expect(res.body, url).not.toContain('CONSOLESECRET');
    }
    const alerts = (await get('/alerts')).body;
    expect(alerts).toContain('&lt;script&gt;alert(&quot;xss&quot;)&lt;/script&gt;');
    expect(alerts).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(alerts).toContain('evil [U+202E]gnp.exe');
  });
});
