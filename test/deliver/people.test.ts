/**
 * People and their subscriptions through the real pipeline: the config's `people:` section, the
 * router, BullMQ workers on Redis, a person's own Slack webhook (a local HTTP receiver) and their
 * email (a local SMTP server).
 */
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Runtime } from '../../src/app/runtime.ts';
import { startWorkers } from '../../src/app/start.ts';
import { createRouter } from '../../src/deliver/routing.ts';
import type { Alert } from '../../src/model/alert.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { Shutdown } from '../../src/ops/shutdown.ts';
import { type HttpReceiver, startHttpReceiver } from '../../src/tools/receivers/http.ts';
import { type SmtpReceiver, startSmtpReceiver } from '../../src/tools/receivers/smtp.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { waitFor } from '../helpers/wait.ts';
import { parseOrThrow } from '../poll/engine-harness.ts';

const BOOKS = ['B0PEOPLE01', 'B0PEOPLE02', 'B0PEOPLE03'] as const;
/** 13:03 UTC: 08:03 in New York (EST), 14:03 in Berlin. */
const T = Date.UTC(2026, 10, 25, 13, 3);

function review(n: number, asin: string, severity: Alert['severity'] = 'info'): Alert {
  return {
    fingerprint: `fp-people-${n}`,
    workspace: 'ws',
    ruleId: 'reviews',
    kind: 'review_new',
    severity,
    status: 'firing',
    subject: { asin, marketplace: 'US', campaignId: 'camp', reviewId: `r-${n}` },
    title: `New 4★ Goodreads review of Book ${n}`,
    facts: {
      asin,
      marketplace: 'US',
      campaignId: 'camp',
      reviewId: `r-${n}`,
      platform: 'goodreads',
      rating: 4,
      reviewer: 'Reader',
      reviewTitle: `Review ${n}`,
      body: 'Good.',
      url: 'https://www.goodreads.com/review/show/1',
      publishedAt: T,
      lowStar: false,
    },
    observedAt: T,
  } as Alert;
}

let slack: HttpReceiver;
let smtp: SmtpReceiver;
const prefix = testPrefix('people');
testRedis(prefix);

function config() {
  return parseOrThrow({
    redis: { url: redisUrl(), prefix },
    workspaces: [
      {
        id: 'ws',
        baseUrl: 'http://127.0.0.1:9',
        apiKey: 'sk_unused',
        timeZone: 'Europe/Berlin',
        books: BOOKS.map((asin, i) => ({ asin, author: i === 2 ? 'Other Author' : 'Ana Roth' })),
      },
    ],
    channels: [
      { id: 'team', type: 'log', groupWait: '100ms' },
      {
        id: 'mail',
        type: 'email',
        smtpUrl: smtp.url,
        from: 'alerts@shelfwatch.test',
        to: ['team@acme.test'],
        groupWait: '100ms',
      },
    ],
    routes: [{ channels: ['team'] }],
    people: {
      accounts: [
        {
          id: 'ana',
          name: 'Ana Roth',
          email: 'ana@acme.test',
          timeZone: 'America/New_York',
          locale: 'de-DE',
          channel: { type: 'slack', webhookUrl: slack.url, allowAnyHost: true, groupWait: '100ms' },
        },
        { id: 'bob', name: 'Bob Publisher', email: 'bob@acme.test', role: 'member' },
        { id: 'cleo', name: 'Cleo Admin', email: 'cleo@acme.test', role: 'admin' },
      ],
      subscriptions: [
        { person: 'ana', asin: [BOOKS[1]] },
        { person: 'bob', alerts: false, digest: true },
      ],
    },
  });
}

beforeAll(async () => {
  slack = await startHttpReceiver();
  smtp = await startSmtpReceiver();
});
afterAll(async () => {
  await slack?.close();
  await smtp?.stop();
});

describe('people and subscriptions', () => {
  it("each person gets their own channels; bob's digest subscription makes him a digest recipient", () => {
    const parsed = config();
    const ids = parsed.channels.map((c) => c.id);
    expect(ids).toEqual([
      'team',
      'mail',
      'person-ana',
      'person-ana-mail',
      'person-bob-mail',
      'person-cleo-mail',
    ]);
    expect(parsed.routes).toEqual([expect.objectContaining({ channels: ['team'] })]);
    expect(parsed.digest.enabled).toBe(true);
    expect(parsed.digest.recipients).toEqual([
      { workspace: 'ws', channel: 'person-bob-mail', timeZone: 'Europe/Berlin' },
    ]);
    const route = createRouter(parsed);
    expect(route(review(1, BOOKS[0])).map((t) => t.channelId)).toEqual(['team']);
    expect(route(review(2, BOOKS[1])).map((t) => t.channelId)).toEqual(['team', 'person-ana']);
    // A critical alert reaches the admin whatever they subscribed to; bob asked for no alerts.
    expect(route(review(3, BOOKS[2], 'critical')).map((t) => t.channelId)).toEqual([
      'team',
      'person-cleo-mail',
    ]);
  });

  it('a person subscribed to one book of three receives only its alert, in their zone and locale, through their Slack', async () => {
    const parsed = config();
    const runtime = new Runtime({ config: parsed, logger: silentLogger(), version: 'test' });
    await runtime.connect();
    const shutdown = new Shutdown(silentLogger());
    shutdown.add('runtime', () => runtime.close());
    try {
      await startWorkers(runtime, shutdown, { reconcile: false });
      await runtime.pollDeps.alerts.enqueue([
        review(1, BOOKS[0]),
        review(2, BOOKS[1]),
        review(3, BOOKS[2]),
        review(4, BOOKS[2], 'critical'),
      ]);
      const [message] = await slack.waitForMessages(1, 15_000);
      const text = JSON.stringify(message?.body);
      expect(text).toContain('Review 2');
      expect(text).not.toMatch(/Review [134]/);
      // 13:03 UTC in New York, written the German way: "25. Nov. 2026, 08:03 GMT-5".
      expect(text).toContain('25. Nov. 2026, 08:03');
      // The admin's email carries the critical alert, in the workspace's zone (she set none).
      const [mail] = await smtp.waitForMessages(1, 15_000);
      expect(mail?.to).toEqual(['cleo@acme.test']);
      const parsedMail = await simpleParser(mail?.raw ?? Buffer.alloc(0));
      expect(parsedMail.text).toContain('Review 4');
      expect(parsedMail.text).toContain('25 Nov 2026, 14:03 CET');
      // Nothing else arrives: give the pipeline time to send anything it wrongly routed.
      await waitFor(
        'the deliver queue to drain',
        async () => {
          const counts = await runtime.deliverQueue.getJobCounts(
            'delayed',
            'waiting',
            'active',
            'prioritized',
          );
          return Object.values(counts).every((n) => n === 0);
        },
        15_000,
      );
      expect(slack.requests).toHaveLength(1);
      expect(smtp.messages.map((m) => m.to)).toEqual([['cleo@acme.test']]);
    } finally {
      await shutdown.run(5_000);
    }
  });
});
