/**
 * "My books" for a signed-in person and times in the viewer's zone: Ana (New York, one book by
 * subscription) sees her book's title, rank now and last change, and only the condition still
 * firing (not the one resolved, not a review event), with times in her zone; the console token
 * (no person) sees the workspace's zone. Over the console's routes, a real Redis.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/app/runtime.ts';
import { seedBook } from './browser-seed.ts';
import { ASIN, alertOf, HOST, login, mainWorkspace, startConsoleRuntime } from './harness.ts';

const ANA_TOKEN = 'ana-personal-token-0123456789abcdef';
/** 12:00 UTC: 07:00 in New York, 13:00 in Berlin. */
const NOW = Date.UTC(2026, 10, 25, 12);

let app: FastifyInstance;
let runtime: Runtime;
let close: () => Promise<void>;

async function signIn(token: string): Promise<{ cookie: string; csrf: string }> {
  const res = await app.inject({
    method: 'POST',
    url: '/login',
    headers: { host: HOST, 'content-type': 'application/x-www-form-urlencoded' },
    payload: `token=${encodeURIComponent(token)}`,
  });
  expect(res.statusCode).toBe(303);
  // A person lands on their own books; the console token on the overview.
  expect(res.headers.location).toBe(token === ANA_TOKEN ? '/me' : '/');
  const cookie = String(res.headers['set-cookie']).split(';')[0] ?? '';
  const page = await app.inject({ url: '/me', headers: { host: HOST, cookie } });
  return { cookie, csrf: /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '' };
}

const get = (path: string, cookie: string) => app.inject({ url: path, headers: { host: HOST, cookie } });

beforeAll(async () => {
  const started = await startConsoleRuntime('my-books', {
    workspaces: [
      { ...mainWorkspace(), timeZone: 'Europe/Berlin' },
      {
        id: 'other',
        baseUrl: 'http://127.0.0.1:9',
        apiKey: 'sk_live_other_0001',
        timeZone: 'Europe/Berlin',
        books: [{ asin: 'B0OTHER001', marketplaces: ['US'] }],
      },
    ],
    people: {
      accounts: [
        {
          id: 'ana',
          name: 'Ana Roth',
          email: 'ana@example.com',
          timeZone: 'America/New_York',
          token: ANA_TOKEN,
          channel: { type: 'slack', webhookUrl: 'https://hooks.slack.com/services/T0/B0/ana' },
        },
      ],
      subscriptions: [{ person: 'ana', asin: [ASIN] }],
    },
  });
  ({ app, runtime, close } = started);
  await seedBook(runtime, NOW);
  const keywordDrop = alertOf(1, { observedAt: NOW - 3_600_000, title: 'space opera fell to #41' });
  const bsrDrop = alertOf(2, {
    fingerprint: 'fp-bsr-firing',
    ruleId: 'bsr',
    kind: 'bsr_worsened',
    subject: { asin: ASIN, marketplace: 'US' },
    title: 'BSR worsened to #9,800',
    observedAt: NOW - 5 * 3_600_000,
  });
  const bsrBack = alertOf(3, {
    fingerprint: 'fp-bsr-resolved',
    ruleId: 'bsr',
    kind: 'bsr_recovered',
    status: 'resolved',
    subject: { asin: ASIN, marketplace: 'US' },
    title: 'BSR recovered to #1,300',
    observedAt: NOW - 2 * 3_600_000,
  });
  const review = alertOf(4, {
    fingerprint: 'fp-review',
    ruleId: 'reviews',
    kind: 'review_new',
    severity: 'info',
    subject: { asin: ASIN, marketplace: 'US', reviewId: 'r1' },
    title: 'New 5★ review',
    observedAt: NOW - 30 * 60_000,
  });
  await runtime.alertLog.record(
    [keywordDrop, bsrDrop, bsrBack, review].map((alert) => ({ alert, channels: ['slack-main'] })),
  );
});

afterAll(async () => {
  await close?.();
});

describe('my books', () => {
  it("shows a person's subscribed book by title, its rank and last change, and only what is firing now, in their zone", async () => {
    const { cookie } = await signIn(ANA_TOKEN);
    const res = await get('/me', cookie);
    expect(res.statusCode).toBe(200);
    const body = res.body;
    expect(body).toContain('The Quiet Orbit &lt;b&gt;bold?&lt;/b&gt;');
    expect(body).not.toContain('B0OTHER001');
    expect(body).toContain('Best-seller rank now: <strong>#9,800</strong>');
    expect(body).toMatch(/Last change: #[\d,]+ → #[\d,]+/);
    expect(body).toContain('1 condition firing now');
    // The review alert is 30 minutes before NOW; the page counts the 7 days before the clock's now
    // (the system clock here), so whether it counts depends on the day the test runs.
    const counted = NOW - 30 * 60_000 >= Date.now() - 7 * 86_400_000 ? 1 : 0;
    expect(body).toContain(`New reviews in 7 days: ${counted}</p>`);
    const firing = body.slice(body.indexOf('<h3>Firing now</h3>'), body.indexOf('<h3>Latest alerts</h3>'));
    expect(firing).toContain('space opera fell to #41');
    // Resolved since, and an event: neither is "firing now".
    expect(firing).not.toContain('BSR worsened to #9,800');
    expect(firing).not.toContain('New 5★ review');
    // The newest three alerts, whatever their state, newest first.
    const latest = body.slice(body.indexOf('<h3>Latest alerts</h3>'));
    expect([...latest.matchAll(/<a href="\/alerts\/[^"]+">([^<]+)<\/a>/g)].map((m) => m[1])).toEqual([
      'New 5★ review',
      'space opera fell to #41',
      'BSR recovered to #1,300',
    ]);
    // The week's BSR as a sparkline: the seeded fall of the last hours ends it low (up is better).
    const spark = /<span class="spark" aria-hidden="true">([▁▂▃▄▅▆▇█ ]{28})<\/span>/.exec(body)?.[1] ?? '';
    expect(spark).toHaveLength(28);
    expect(spark.at(-1)).toBe('▁');
    // 11:00 UTC in New York, the zone named on the page.
    expect(body).toContain('since 25 Nov 2026, 06:00 GMT-5');
    expect(body).toContain('Times in America/New_York.');
    expect(body).toContain('value="1d"');
  });

  it('mutes the firing kind of her own book for a day from the page', async () => {
    const { cookie, csrf } = await signIn(ANA_TOKEN);
    const res = await app.inject({
      method: 'POST',
      url: '/silences',
      headers: { host: HOST, cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        _csrf: csrf,
        workspace: 'main',
        asin: ASIN,
        kind: 'keyword_rank_drop',
        duration: '1d',
        reason: 'muted from My books',
      }).toString(),
    });
    expect(res.statusCode).toBe(303);
    const silences = await runtime.silences.all();
    expect(silences.map((s) => [s.matchers.asin, s.matchers.kind, s.reason])).toContainEqual([
      [ASIN],
      ['keyword_rank_drop'],
      'muted from My books',
    ]);
  });

  it("the console token is no person: no books, and times in the workspaces' zone", async () => {
    const { cookie } = await login(app);
    const me = await get('/me', cookie);
    expect(me.body).toContain('belongs to no person');
    const alerts = await get('/alerts', cookie);
    expect(alerts.body).toContain('Times in Europe/Berlin.');
    // 11:00 UTC is 12:00 in Berlin.
    expect(alerts.body).toContain('25 Nov 2026, 12:00 CET');
    const asAna = await get('/alerts', (await signIn(ANA_TOKEN)).cookie);
    expect(asAna.body).toContain('25 Nov 2026, 06:00 GMT-5');
  });
});
