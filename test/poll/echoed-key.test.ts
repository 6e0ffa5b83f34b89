/**
 * Issue 27: an API that echoes the key in every field of its errors (code, message, request_id,
 * details[].path and .message, the X-Request-Id header, an HTML page). The real workers poll it
 * until source_health fires; the key is then nowhere: not in the alerts the channel got, not in a
 * log line (a logger given no secrets, so the errors themselves must be clean), not in Redis, not
 * on a console page. The configured-secrets fence of the logger is checked on its own below.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { Cluster, Redis } from 'ioredis';
import { expect, it, onTestFinished } from 'vitest';
import { secretsIn } from '../../src/config-kit/secret.ts';
import { buildConsole } from '../../src/console/server.ts';
import { createLogger } from '../../src/ops/logger.ts';
import { capturedRuntimeForTest } from '../deliver/pipeline-harness.ts';
import { capturingLogger } from '../helpers/log-lines.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { waitFor } from '../helpers/wait.ts';
import { parseOrThrow } from './engine-harness.ts';

const KEY = 'sk_live_ECHOEDKEY_0123456789abcdef';
const prefix = testPrefix('echoed-key');
testRedis(prefix);

/** An API that answers every request with an error carrying the key it was sent, everywhere. */
async function echoingApi(): Promise<string> {
  let n = 0;
  const server = createServer((req, res) => {
    const key = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    n += 1;
    const variant = n % 3;
    if (variant === 0) {
      res.writeHead(502, { 'content-type': 'text/html', 'x-request-id': `req-${key}` });
      res.end(`<html><body>bad gateway for ${key}</body></html>`);
      return;
    }
    res.writeHead(variant === 1 ? 422 : 404, {
      'content-type': 'application/json',
      'x-request-id': `hdr-${key}`,
      [`x-echo-${key.toLowerCase()}`]: key,
    });
    const error: Record<string, unknown> = {
      code: `bad_${key}`,
      message: `the key ${key} is wrong`,
      details: [{ path: `${key}.asin`, message: `see ${encodeURIComponent(key)}` }],
    };
    if (variant === 1) error.request_id = `req-${key}`;
    res.end(JSON.stringify({ error }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function dumpRedis(redis: Redis | Cluster): Promise<string> {
  const out: string[] = [];
  for (const key of await redis.keys(`${prefix}*`)) {
    const type = await redis.type(key);
    const read: Record<string, () => Promise<unknown>> = {
      string: () => redis.getBuffer(key).then((b) => b?.toString('latin1')),
      hash: () => redis.hgetall(key),
      list: () => redis.lrange(key, 0, -1),
      set: () => redis.smembers(key),
      zset: () => redis.zrange(key, 0, -1),
      stream: () => redis.xrange(key, '-', '+'),
    };
    out.push(key, JSON.stringify(await read[type]?.()));
  }
  return out.join('\n');
}

it('a key echoed in every error field and header reaches no alert, log line, Redis key or page', async () => {
  const baseUrl = await echoingApi();
  const config = parseOrThrow({
    redis: { url: redisUrl(), prefix },
    workspaces: [
      {
        id: 'ws',
        baseUrl,
        apiKey: KEY,
        plan: 'custom:600:100000',
        books: [{ asin: 'B0CJ4XQ2ZK', marketplaces: ['US'] }],
        sales: false,
        cadence: { book: '1s' },
      },
    ],
    rules: [{ id: 'health', kind: 'source_health', failures: 3 }],
    channels: [{ id: 'capture', type: 'log' }],
  });
  const { logger, lines } = capturingLogger();
  const { runtime, capture } = await capturedRuntimeForTest(config, logger);
  const healthAlerts = () =>
    capture.messages.flatMap((m) => m.message.alerts).filter((a) => a.kind === 'source_health');
  await waitFor('the source_health alert', async () => healthAlerts().length > 0, 20_000);

  const alertsText = JSON.stringify(capture.messages);
  expect(alertsText).toContain('[redacted]');
  expect(alertsText).not.toContain(KEY);
  const logText = JSON.stringify(lines);
  expect(lines.length).toBeGreaterThan(0);
  expect(logText).not.toContain(KEY);
  const stored = await dumpRedis(runtime.redis);
  expect(stored).toContain('[redacted]');
  expect(stored).not.toContain(KEY);

  const app = await buildConsole({
    runtime,
    token: 'echoed-key-console-token-0001',
    host: '127.0.0.1',
    port: 8466,
  });
  onTestFinished(() => app.close());
  const res = await app.inject({
    method: 'POST',
    url: '/login',
    headers: { host: '127.0.0.1:8466', 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'token=echoed-key-console-token-0001',
  });
  const cookie = String(res.headers['set-cookie']).split(';')[0] ?? '';
  for (const url of [
    '/',
    '/alerts',
    `/alerts/${healthAlerts()[0]?.fingerprint}`,
    '/books/ws/B0CJ4XQ2ZK/US',
  ]) {
    const page = await app.inject({ url, headers: { host: '127.0.0.1:8466', cookie } });
    expect(page.statusCode, url).toBe(200);
    expect(page.body, url).not.toContain(KEY);
  }
});

it('the logger takes every configured secret out of every line, whatever field carries it', () => {
  const config = parseOrThrow({
    redis: { url: 'redis://:redis-pass-0123456789@127.0.0.1:6379' },
    workspaces: [
      {
        id: 'ws',
        baseUrl: 'https://api.example.com',
        apiKey: KEY,
        books: [{ asin: 'B0CJ4XQ2ZK', marketplaces: ['US'] }],
      },
    ],
    channels: [
      { id: 'slack', type: 'slack', webhookUrl: 'https://hooks.slack.com/services/T0/B0/slacksecrettoken99' },
      { id: 'tg', type: 'telegram', botToken: '123456:telegram-bot-token-abcdef', chatId: '42' },
      {
        id: 'mail',
        type: 'email',
        smtpUrl: 'smtps://alerts:smtp-password-0123@smtp.example.com:465',
        from: 'a@example.com',
        to: ['b@example.com'],
      },
    ],
  });
  const secrets = secretsIn(config);
  const written: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk.toString());
      done();
    },
  });
  const logger = createLogger({ destination, secrets });
  const raw = [
    'sk_live_ECHOEDKEY_0123456789abcdef',
    'slacksecrettoken99',
    '123456:telegram-bot-token-abcdef',
    'smtp-password-0123',
    'redis-pass-0123456789',
  ];
  logger.warn(
    { code: `x_${raw[0]}`, requestId: raw[1], headers: { 'x-a': raw[2] }, nested: [{ path: raw[3] }] },
    `failed ${raw[4]}`,
  );
  expect(written).toHaveLength(1);
  for (const secret of raw) expect(written[0]).not.toContain(secret);
  expect(JSON.parse(written[0] ?? '{}').code).toBe('x_[redacted]');
});
