/** A console over a real Redis with a config that holds secrets, so tests can look for leaks. */
import type { FastifyInstance } from 'fastify';
import { Runtime } from '../../src/app/runtime.ts';
import { buildConsole } from '../../src/console/server.ts';
import type { Alert } from '../../src/model/alert.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { type LooseAlert, looseAlert } from '../helpers/alert-facts.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';
import { parseOrThrow } from '../poll/engine-harness.ts';

export const TOKEN = 'console-test-token-1234567890';
export const SECRETS = {
  apiKey: 'sk_live_CONSOLESECRET_apikey_0001',
  webhook: 'https://hooks.slack.com/services/T000/B000/CONSOLESECRETHOOK',
  smtpPassword: 'CONSOLESECRETsmtppw',
};
export const ASIN = 'B0CJ4XQ2ZK';

/** The workspace the console tests seed by hand (its API is never asked: the port answers nothing). */
export function mainWorkspace(): Record<string, unknown> {
  return {
    id: 'main',
    baseUrl: 'http://127.0.0.1:9',
    apiKey: SECRETS.apiKey,
    books: [{ asin: ASIN, marketplaces: ['US'], keywords: ['space opera'], author: 'Ada Quill' }],
    campaigns: [{ id: 'camp-1' }],
  };
}

export function consoleConfig(prefix: string, extra: Record<string, unknown> = {}) {
  return parseOrThrow({
    redis: { url: redisUrl(), prefix },
    workspaces: [mainWorkspace()],
    channels: [
      { id: 'slack-main', type: 'slack', webhookUrl: SECRETS.webhook },
      {
        id: 'mail',
        type: 'email',
        smtpUrl: `smtps://alerts:${SECRETS.smtpPassword}@smtp.example.com:465`,
        from: 'alerts@example.com',
        to: ['team@example.com'],
      },
    ],
    ...extra,
  });
}

export async function startConsoleRuntime(name: string, extra: Record<string, unknown> = {}) {
  const prefix = testPrefix(name);
  const redis = testRedis(prefix);
  const runtime = new Runtime({
    config: consoleConfig(prefix, extra),
    logger: silentLogger(),
    version: 'test',
  });
  await runtime.connect();
  const app = await buildConsole({ runtime, token: TOKEN, host: '127.0.0.1', port: 8466 });
  return {
    prefix,
    redis,
    runtime,
    app,
    close: async () => {
      await app.close();
      await runtime.close();
    },
  };
}

export const HOST = '127.0.0.1:8466';

/** Logs in through the form; returns the session cookie and a CSRF token read from a page. */
export async function login(app: FastifyInstance): Promise<{ cookie: string; csrf: string }> {
  const res = await app.inject({
    method: 'POST',
    url: '/login',
    headers: { host: HOST, 'content-type': 'application/x-www-form-urlencoded' },
    payload: `token=${encodeURIComponent(TOKEN)}`,
  });
  if (res.statusCode !== 303) throw new Error(`login answered ${res.statusCode}`);
  const set = String(res.headers['set-cookie']);
  const cookie = set.split(';')[0] ?? '';
  const page = await app.inject({ url: '/silences', headers: { host: HOST, cookie } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
  return { cookie, csrf };
}

export function alertOf(n: number, overrides: Partial<LooseAlert> = {}): Alert {
  return looseAlert({
    fingerprint: `fp-console-${n}`,
    workspace: 'main',
    ruleId: 'keyword-drop',
    kind: 'keyword_rank_drop',
    severity: 'warning',
    status: 'firing',
    subject: { asin: ASIN, marketplace: 'US', keyword: 'space opera' },
    title: `space opera fell to #${n}`,
    facts: {},
    observedAt: Date.now() - n * 60_000,
    ...overrides,
  });
}

export const HOSTILE = [
  '<script>alert("xss")</script>',
  '"><img src=x onerror=alert(1)>',
  'evil \u202Egnp.exe',
  `long ${'A'.repeat(10_000)}`,
];
