/**
 * Signing in to the console (issue 27): wrong tokens throttled per client and for the token itself,
 * sessions that end on logout in Redis (a copied cookie is worth nothing after), a token of at least
 * 24 characters beyond loopback, and behind a TLS proxy a Secure cookie and the public host answered
 * (`console.publicUrl`, `console.trustedProxies`). Real Redis, the real server through inject.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.ts';
import { HOST, login, mainWorkspace, startConsoleRuntime, TOKEN } from './harness.ts';

const consoles: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const c of consoles) await c.close();
});
async function consoleEnv(name: string, extra: Record<string, unknown> = {}) {
  const env = await startConsoleRuntime(name, extra);
  consoles.push(env);
  return env;
}

type Env = Awaited<ReturnType<typeof consoleEnv>>;
const signIn = (env: Env, token: string, remoteAddress: string, headers: Record<string, string> = {}) =>
  env.app.inject({
    method: 'POST',
    url: '/login',
    remoteAddress,
    headers: { host: HOST, 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: `token=${encodeURIComponent(token)}`,
  });

describe('login throttling', () => {
  it('200 wrong tokens from one client: 10 are judged, the rest and then the right token get 429', async () => {
    const env = await consoleEnv('console-throttle-client');
    const statuses: number[] = [];
    for (let i = 0; i < 200; i += 1)
      statuses.push((await signIn(env, `guess-${i}`, '203.0.113.7')).statusCode);
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(190);
    const right = await signIn(env, TOKEN, '203.0.113.7');
    expect(right.statusCode).toBe(429);
    expect(Number(right.headers['retry-after'])).toBeGreaterThan(800);
    expect(right.headers['set-cookie']).toBeUndefined();
    // Another client is not blocked by this one.
    expect((await signIn(env, TOKEN, '198.51.100.9')).statusCode).toBe(303);
  });

  it('wrong tokens spread over many clients block the token itself after 100', async () => {
    const env = await consoleEnv('console-throttle-secret');
    const statuses: number[] = [];
    for (let i = 0; i < 120; i += 1)
      statuses.push((await signIn(env, `guess-${i}`, `10.0.${Math.floor(i / 5)}.${i % 5}`)).statusCode);
    expect(statuses.filter((s) => s === 401)).toHaveLength(100);
    expect(statuses.slice(100).every((s) => s === 429)).toBe(true);
    expect((await signIn(env, TOKEN, '192.0.2.200')).statusCode).toBe(429);
  });
});

describe('sessions', () => {
  it('a cookie replayed after logout is refused', async () => {
    const env = await consoleEnv('console-logout');
    const session = await login(env.app);
    const page = () => env.app.inject({ url: '/', headers: { host: HOST, cookie: session.cookie } });
    expect((await page()).statusCode).toBe(200);
    const out = await env.app.inject({
      method: 'POST',
      url: '/logout',
      headers: { host: HOST, cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `_csrf=${encodeURIComponent(session.csrf)}`,
    });
    expect(out.statusCode).toBe(303);
    expect((await page()).statusCode).toBe(401);
    // Nothing in Redis names the session id the cookie carries.
    const keys = await env.redis.keys(`${env.prefix}:access:*`);
    const values = await Promise.all(keys.map((k) => env.redis.get(k).catch(() => '')));
    expect(JSON.stringify(keys) + JSON.stringify(values)).not.toContain(session.cookie.split('=')[1]);
  });

  it('a session opened by one console process works in another and ends in both', async () => {
    const env = await consoleEnv('console-shared');
    const session = await login(env.app);
    const { buildConsole } = await import('../../src/console/server.ts');
    const other = await buildConsole({ runtime: env.runtime, token: TOKEN, host: '127.0.0.1', port: 8466 });
    consoles.push(other);
    const page = () => other.inject({ url: '/', headers: { host: HOST, cookie: session.cookie } });
    expect((await page()).statusCode).toBe(200);
    await env.app.inject({
      method: 'POST',
      url: '/logout',
      headers: { host: HOST, cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `_csrf=${encodeURIComponent(session.csrf)}`,
    });
    expect((await page()).statusCode).toBe(401);
  });
});

describe('tokens beyond loopback', () => {
  const remote = (token: string) =>
    parseConfig({
      workspaces: [mainWorkspace()],
      channels: [{ id: 'log', type: 'log' }],
      console: { host: '0.0.0.0', allowRemote: true, token },
    });
  it('a token under 24 characters is refused, naming console.token', () => {
    const short = remote('x');
    expect(short.ok).toBe(false);
    if (!short.ok) expect(short.problems.map((p) => p.path)).toContain('console.token');
    expect(JSON.stringify(short)).not.toContain('"x"');
    expect(remote('a'.repeat(23)).ok).toBe(false);
    expect(remote('a'.repeat(24)).ok).toBe(true);
  });
});

describe('behind a TLS proxy', () => {
  it('console.publicUrl: its host is answered and the cookie is Secure', async () => {
    const env = await consoleEnv('console-public', {
      console: { publicUrl: 'https://shelfwatch.example.com/' },
    });
    const res = await signIn(env, TOKEN, '127.0.0.1', { host: 'shelfwatch.example.com' });
    expect(res.statusCode).toBe(303);
    expect(String(res.headers['set-cookie'])).toMatch(/; Secure/);
    const cookie = String(res.headers['set-cookie']).split(';')[0] ?? '';
    const page = await env.app.inject({ url: '/', headers: { host: 'shelfwatch.example.com', cookie } });
    expect(page.statusCode).toBe(200);
    const other = await env.app.inject({ url: '/', headers: { host: 'evil.example.com', cookie } });
    expect(other.statusCode).toBe(421);
  });

  it('console.trustedProxies: the proxy names the client and the scheme; others cannot', async () => {
    const env = await consoleEnv('console-proxy', { console: { trustedProxies: ['127.0.0.2'] } });
    const viaProxy = (client: string, token: string) =>
      signIn(env, token, '127.0.0.2', { 'x-forwarded-for': client, 'x-forwarded-proto': 'https' });
    for (let i = 0; i < 10; i += 1)
      expect((await viaProxy('203.0.113.50', `nope-${i}`)).statusCode).toBe(401);
    expect((await viaProxy('203.0.113.50', TOKEN)).statusCode).toBe(429);
    const ok = await viaProxy('203.0.113.51', TOKEN);
    expect(ok.statusCode).toBe(303);
    expect(String(ok.headers['set-cookie'])).toMatch(/; Secure/);
    // A client that is not the proxy cannot pick its own address or scheme.
    for (let i = 0; i < 10; i += 1)
      await signIn(env, `nope-${i}`, '127.0.0.9', { 'x-forwarded-for': `198.51.100.${i}` });
    const spoofed = await signIn(env, TOKEN, '127.0.0.9', { 'x-forwarded-for': '198.51.100.77' });
    expect(spoofed.statusCode).toBe(429);
    const plain = await signIn(env, TOKEN, '127.0.0.3', { 'x-forwarded-proto': 'https' });
    expect(String(plain.headers['set-cookie'])).not.toMatch(/Secure/);
  });
});
