/**
 * No secret leaks: a whole scenario (poll engine and delivery against the simulator, a Slack
 * receiver, an SMTP server with a password in its URL) at log level trace, with failures that
 * tempt every error path to quote a secret (a revoked API key, a Slack webhook that answers 404
 * quoting its own token, an SMTP server that quotes the wrong password). Then every log line, every
 * Redis key under the prefix (BullMQ jobs included) and every message sent must be free of them.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Runtime } from '../../src/app/runtime.ts';
import { startWorkers } from '../../src/app/start.ts';
import { createLogger } from '../../src/ops/logger.ts';
import { Shutdown } from '../../src/ops/shutdown.ts';
import { type HttpReceiver, startHttpReceiver } from '../../src/tools/receivers/http.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { useSimulator } from '../helpers/sim.ts';
import { waitFor } from '../helpers/wait.ts';
import { parseOrThrow } from '../poll/engine-harness.ts';
import { dumpRedis, LogCapture, type RedisDumpEntry, secretsIn } from './helpers.ts';

/** Every secret carries this marker, so one search finds any of them, whole or in part. */
const MARKER = 'LEAKMARKER';
const API_KEY = `sk_live_${MARKER}_api_5f3c9a17`;
const SLACK_TOKEN = `${MARKER}slackToken0123456789`;
const SLACK_GONE_TOKEN = `${MARKER}goneToken9876543210`;
const SMTP_USER = 'alerts@example.com';
const SMTP_PASSWORD = `${MARKER}-p@ss:w/rd%ok`;
const SMTP_WRONG_PASSWORD = `${MARKER}-wrong-pw-77`;
const WORKSPACE = 'ws-secret';

const prefix = testPrefix('rel-secrets');
const redis = testRedis(prefix);
const logs = new LogCapture();
let slack: HttpReceiver;
let slackGone: HttpReceiver;
let smtp: SMTPServer;
let smtpUrl: (password: string) => string;
let delivered = 0;
let authFailures = 0;
let runtime: Runtime;
let shutdown: Shutdown;
let secrets: string[];
let redisDump: RedisDumpEntry[];

async function startSmtp(): Promise<void> {
  smtp = new SMTPServer({
    authOptional: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) {
        callback(null, { user: auth.username });
        return;
      }
      authFailures += 1;
      // A careless server that quotes what it was sent: the client must not pass this on.
      const error = Object.assign(new Error(`Authentication failed for ${auth.username}:${auth.password}`), {
        responseCode: 535,
      });
      callback(error);
    },
    onData(stream, _session, callback) {
      stream.resume();
      stream.on('end', () => {
        delivered += 1;
        callback();
      });
    },
  });
  smtp.on('error', () => {});
  smtp.listen(0, '127.0.0.1');
  await once(smtp.server, 'listening');
  const { port } = smtp.server.address() as AddressInfo;
  smtpUrl = (password) =>
    `smtp://${encodeURIComponent(SMTP_USER)}:${encodeURIComponent(password)}@127.0.0.1:${port}?ignoreTLS=true`;
}

const CANARY = `${prefix}:canary`;

async function plantCanaries(): Promise<void> {
  await redis.set(`${CANARY}:string`, `x${MARKER}x`);
  await redis.hset(`${CANARY}:hash`, 'data', JSON.stringify({ token: SLACK_TOKEN }));
  await redis.rpush(`${CANARY}:list`, `a ${API_KEY} b`);
  await redis.sadd(`${CANARY}:set`, encodeURIComponent(SMTP_PASSWORD));
  await redis.zadd(`${CANARY}:zset`, 1, SMTP_WRONG_PASSWORD);
  await redis.xadd(`${CANARY}:stream`, '*', 'event', 'failed', 'reason', slackGone.url);
}

const fx = useSimulator({
  seed: 11,
  books: 2,
  campaigns: 1,
  key: API_KEY,
  workspace: WORKSPACE,
  plan: 'custom:100000:10000000',
});

beforeAll(async () => {
  slack = await startHttpReceiver(`/services/T0SECRET/B0SECRET/${SLACK_TOKEN}`);
  slackGone = await startHttpReceiver(`/services/T0GONE/B0GONE/${SLACK_GONE_TOKEN}`);
  // The webhook is gone, and the answer quotes the path it was posted to.
  slackGone.respondWith((req) => ({ status: 404, body: `no_service ${req.path}` }), 1_000);
  await startSmtp();
  secrets = [
    API_KEY,
    slack.url,
    SLACK_TOKEN,
    slackGone.url,
    SLACK_GONE_TOKEN,
    SMTP_PASSWORD,
    SMTP_WRONG_PASSWORD,
    smtpUrl(SMTP_PASSWORD),
    smtpUrl(SMTP_WRONG_PASSWORD),
    MARKER,
  ];
}, 30_000);

afterAll(async () => {
  await shutdown?.run(5_000);
  await slack?.close();
  await slackGone?.close();
  await new Promise<void>((resolve) => (smtp === undefined ? resolve() : smtp.close(() => resolve())));
});

/** What happened so far, for a failure message: the log (secrets are what this file looks for). */
async function diagnosis(): Promise<string> {
  const requests = (await fx.control.requests()).slice(-15).map((r) => `${r.method} ${r.path} ${r.status}`);
  const lines = logs.lines.slice(-40).map((line) => line.replaceAll(MARKER, '[marker]').slice(0, 300));
  return ['last API requests:', ...requests, 'last log lines:', ...lines].join('\n');
}

describe('a scenario with failures at log level trace', () => {
  it('runs: polls, alerts, deliveries, a 401, a Slack 404, an SMTP auth failure', async () => {
    const world = fx.world;
    const book = world.books[0];
    const campaign = world.campaigns[0];
    if (book === undefined || campaign === undefined) throw new Error('the simulator world is empty');
    const keyword = book.keywords[0] ?? 'cozy mystery';
    const delivery = { groupWait: '100ms', groupInterval: '100ms' };
    const config = parseOrThrow({
      redis: { url: redisUrl(), prefix },
      workspaces: [
        {
          id: WORKSPACE,
          baseUrl: fx.url,
          apiKey: API_KEY,
          plan: 'custom:100000:10000000',
          books: [{ asin: book.asin, marketplaces: ['US'], keywords: [keyword] }],
          campaigns: [{ id: campaign.campaign_id }],
          sales: false,
          cadence: { book: '2s', keywords: '2s', reviews: '2s' },
        },
      ],
      rules: [
        { id: 'new-review', kind: 'review_new' },
        { id: 'kw', kind: 'keyword_rank_drop', positionsLost: 1 },
        { id: 'health', kind: 'source_health', failures: 1 },
      ],
      channels: [
        { id: 'log', type: 'log', ...delivery },
        { id: 'slack-ok', type: 'slack', webhookUrl: slack.url, allowAnyHost: true, ...delivery },
        { id: 'slack-gone', type: 'slack', webhookUrl: slackGone.url, allowAnyHost: true, ...delivery },
        {
          id: 'mail-ok',
          type: 'email',
          smtpUrl: smtpUrl(SMTP_PASSWORD),
          from: 'alerts@example.com',
          to: ['team@example.com'],
          ...delivery,
        },
        {
          id: 'mail-bad',
          type: 'email',
          smtpUrl: smtpUrl(SMTP_WRONG_PASSWORD),
          from: 'alerts@example.com',
          to: ['team@example.com'],
          ...delivery,
        },
      ],
    });
    const logger = createLogger({ level: 'trace', destination: logs });
    runtime = new Runtime({
      config,
      logger,
      version: 'test',
      delivery: { attempts: 2, backoffMs: 200, keepMs: 3_600_000 },
    });
    await runtime.connect();
    shutdown = new Shutdown(logger);
    shutdown.add('runtime', () => runtime.close());
    await startWorkers(runtime, shutdown);

    // Every target has its silent baseline.
    const targets = runtime.registry.all();
    await waitFor(
      'a baseline of every target',
      async () => {
        for (const target of targets)
          if ((await runtime.store.get(target.ref)) === undefined) return undefined;
        return true;
      },
      15_000,
    );
    await fx.control.event({
      type: 'review',
      campaign_id: campaign.campaign_id,
      platform: 'amazon',
      rating: 5,
      body: 'Loved it.',
      reviewer: 'A reader',
    });
    await fx.control.event({ type: 'keyword_rank', asin: book.asin, keyword, rank: 95 });

    await slack.waitForMessages(1, 20_000).catch(async (error: Error) => {
      throw new Error(`${error.message}\n${await diagnosis()}`);
    });
    await waitFor('an email through the good SMTP channel', () => (delivered > 0 ? true : undefined), 20_000);
    await waitFor(
      'the 404 webhook to be tried',
      () => (slackGone.requests.length > 0 ? true : undefined),
      20_000,
    );
    await waitFor('the wrong SMTP password to be tried', () => (authFailures > 0 ? true : undefined), 20_000);
    await waitFor(
      'both broken channels disabled',
      async () => {
        const [gone, bad] = await Promise.all([
          runtime.channelHealth.disabledReason('slack-gone'),
          runtime.channelHealth.disabledReason('mail-bad'),
        ]);
        return gone !== null && bad !== null ? true : undefined;
      },
      20_000,
    );

    // The key is revoked: the next polls are answered 401.
    await fx.control.revoke(API_KEY);
    await waitFor(
      'a poll that failed with 401',
      () => (logs.lines.some((line) => line.includes('UnauthorizedError')) ? true : undefined),
      20_000,
    );
    // The second fence: fields that carry secrets by name are redacted even when logged by mistake.
    logger.warn(
      { apiKey: API_KEY, channel: { webhookUrl: slack.url, smtpUrl: smtpUrl(SMTP_PASSWORD) } },
      'redaction canary',
    );
    logger.warn({ request: { headers: { authorization: `Bearer ${API_KEY}` } } }, 'redaction canary');
    await shutdown.run(10_000);
    // One planted key of every type proves the dump reads them all (they are the only leaks allowed).
    await plantCanaries();
    redisDump = await dumpRedis(redis, prefix);
  }, 120_000);

  it('the scenario really went through the failure paths it is meant to test', () => {
    const records = logs.records();
    const messages = records.map((r) => String(r.msg));
    expect(messages).toContain('poll failed; baseline kept');
    expect(
      records
        .filter((r) => r.msg === 'channel disabled after a permanent refusal')
        .map((r) => r.channelId)
        .sort(),
    ).toEqual(['mail-bad', 'slack-gone']);
    expect(slackGone.requests[0]?.path).toContain(SLACK_GONE_TOKEN);
    expect(redisDump.some((entry) => /:deliver:/.test(entry.key) && entry.type === 'hash')).toBe(true);
    expect(redisDump.some((entry) => entry.key.endsWith(':disabled:mail-bad'))).toBe(true);
  });

  it('the search finds a secret raw or percent-encoded, and redaction canaries were logged', () => {
    expect(secretsIn(`…${smtpUrl(SMTP_PASSWORD)}…`, secrets)).toContain(SMTP_PASSWORD);
    expect(secretsIn(encodeURIComponent(SMTP_WRONG_PASSWORD), [SMTP_WRONG_PASSWORD])).toEqual([
      SMTP_WRONG_PASSWORD,
    ]);
    expect(logs.records().filter((r) => r.msg === 'redaction canary')).toHaveLength(2);
  });

  it('no log line holds a secret', () => {
    const leaks = logs.lines
      .map((line, index) => ({ index, found: secretsIn(line, secrets), line: line.slice(0, 400) }))
      .filter((leak) => leak.found.length > 0);
    expect(logs.lines.length).toBeGreaterThan(10);
    expect(leaks).toEqual([]);
  });

  it('no Redis key or value under the prefix holds a secret (BullMQ jobs, snapshots, buffers)', () => {
    expect(redisDump.length).toBeGreaterThan(10);
    const leaks = redisDump
      .map((entry) => ({
        key: entry.key,
        type: entry.type,
        found: [...new Set([...secretsIn(entry.contents, secrets), ...secretsIn(entry.dump, secrets)])],
      }))
      .filter((leak) => leak.found.length > 0);
    expect(
      leaks
        .filter((leak) => leak.key.startsWith(CANARY))
        .map((leak) => leak.type)
        .sort(),
    ).toEqual(['hash', 'list', 'set', 'stream', 'string', 'zset']);
    expect(leaks.filter((leak) => !leak.key.startsWith(CANARY))).toEqual([]);
  });

  it('no message sent to a channel quotes another channel’s secret', () => {
    const bodies = slack.requests.map((r) => r.raw);
    expect(bodies.length).toBeGreaterThan(0);
    for (const body of bodies) expect(secretsIn(body, secrets)).toEqual([]);
  });
});
