import { describe, expect, it } from 'vitest';
import { parsePlan } from '../../src/sim/index.ts';
import {
  type ErrorBody,
  type LogEntry,
  PUBLISHER_KEY,
  STUDIO_KEY,
  TestSim,
  type WorldBody,
} from './helpers.ts';

async function firstAsin(t: TestSim): Promise<string> {
  return (await t.world()).books[0]!.asin;
}

describe('auth', () => {
  it('answers 401 unauthorized for a missing, unknown or revoked key, without counting it', async () => {
    const t = await TestSim.startForTest();
    const asin = await firstAsin(t);
    const missing = await t.get<ErrorBody>(`/v1/books/${asin}`, null);
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('unauthorized');
    expect(missing.headers.get('x-ratelimit-limit')).toBeNull();
    expect((await t.get<ErrorBody>(`/v1/books/${asin}`, 'sk_wrong')).status).toBe(401);
    const malformed = await t.request<ErrorBody>('GET', `/v1/books/${asin}`, {
      key: null,
      headers: { Authorization: `Basic ${STUDIO_KEY}` },
    });
    expect(malformed.status).toBe(401);

    await t.control('POST', '/_sim/keys', { key: 'sk_new', workspace: 'demo-studio', plan: 'studio' });
    const before = await t.get(`/v1/books/${asin}`, 'sk_new');
    expect(before.status).toBe(200);
    expect(before.headers.get('x-ratelimit-remaining')).toBe('59');
    await t.control('POST', '/_sim/keys/revoke', { key: 'sk_new' });
    expect((await t.get<ErrorBody>(`/v1/books/${asin}`, 'sk_new')).status).toBe(401);
    // The studio workspace's other key still works, and the 401s above cost nothing.
    const after = await t.get(`/v1/books/${asin}`, STUDIO_KEY);
    expect(after.status).toBe(200);
    expect(after.headers.get('x-ratelimit-remaining')).toBe('58');
    expect((await t.controlRaw('POST', '/_sim/keys/revoke', { key: 'sk_never' })).status).toBe(404);
  });

  it('answers 403 forbidden on disabled endpoints only', async () => {
    const t = await TestSim.startForTest({
      keys: [
        { key: 'sk_noarc', workspace: 'noarc', plan: parsePlan('studio'), disabledEndpoints: ['/v1/arc'] },
      ],
    });
    const forbidden = await t.get<ErrorBody>('/v1/arc/reviews', 'sk_noarc');
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('forbidden');
    expect(forbidden.headers.get('x-quota-remaining')).toBe('99999');
    expect((await t.get('/v1/sales', 'sk_noarc')).status).toBe(200);
  });
});

describe('per-minute limit', () => {
  it('refuses the 61st request of a sim minute on a Studio key with 429 rate_limited and Retry-After', async () => {
    const t = await TestSim.startForTest();
    const asin = await firstAsin(t);
    for (let i = 1; i <= 60; i++) {
      const reply = await t.get(`/v1/books/${asin}/keywords`, STUDIO_KEY);
      expect(reply.status).toBe(200);
      expect(reply.headers.get('x-ratelimit-remaining')).toBe(String(60 - i));
    }
    const refused = await t.get<ErrorBody>(`/v1/books/${asin}`, STUDIO_KEY);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    // The clock stands at 14:00:10: the window ends at 14:01:00.
    expect(refused.headers.get('retry-after')).toBe('50');
    expect(refused.headers.get('x-ratelimit-limit')).toBe('60');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('x-ratelimit-reset')).toBe(String(Date.parse('2026-11-21T14:01:00Z') / 1000));
    expect(refused.headers.get('x-quota-limit')).toBe('100000');
    expect(refused.headers.get('x-quota-remaining')).toBe('99940');
    // A 429 is not counted: the quota did not move.
    expect((await t.get(`/v1/books/${asin}`, STUDIO_KEY)).headers.get('x-quota-remaining')).toBe('99940');
    // Another workspace has its own window.
    expect((await t.get(`/v1/books/${asin}`, PUBLISHER_KEY)).status).toBe(200);

    await t.advance(49_000);
    const almost = await t.get<ErrorBody>(`/v1/books/${asin}`, STUDIO_KEY);
    expect(almost.status).toBe(429);
    expect(almost.headers.get('retry-after')).toBe('1');
    await t.advance(1_000);
    const next = await t.get(`/v1/books/${asin}`, STUDIO_KEY);
    expect(next.status).toBe(200);
    expect(next.headers.get('x-ratelimit-remaining')).toBe('59');
    expect(next.headers.get('x-ratelimit-reset')).toBe(String(Date.parse('2026-11-21T14:02:00Z') / 1000));
    expect(next.headers.get('x-quota-remaining')).toBe('99939');
  });

  it('counts keys of one workspace together', async () => {
    const t = await TestSim.startForTest({
      keys: [
        { key: 'sk_a', workspace: 'shared', plan: parsePlan('custom:3:1000') },
        { key: 'sk_b', workspace: 'shared', plan: parsePlan('custom:3:1000') },
      ],
    });
    expect((await t.get('/v1/sales', 'sk_a')).status).toBe(200);
    expect((await t.get('/v1/sales', 'sk_b')).status).toBe(200);
    expect((await t.get('/v1/sales', 'sk_a')).status).toBe(200);
    expect((await t.get<ErrorBody>('/v1/sales', 'sk_b')).body.error.code).toBe('rate_limited');
  });
});

describe('monthly quota', () => {
  it('refuses requests over the month with quota_exceeded until the next UTC month', async () => {
    const t = await TestSim.startForTest({
      keys: [{ key: 'sk_small', workspace: 'small', plan: parsePlan('custom:1000:30') }],
    });
    for (let i = 1; i <= 30; i++) expect((await t.get('/v1/arc/reviews', 'sk_small')).status).toBe(200);
    const refused = await t.get<ErrorBody>('/v1/arc/reviews', 'sk_small');
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('quota_exceeded');
    const untilDecember = (Date.parse('2026-12-01T00:00:00Z') - Date.parse('2026-11-21T14:00:10Z')) / 1000;
    expect(refused.headers.get('retry-after')).toBe(String(untilDecember));
    expect(refused.headers.get('x-quota-remaining')).toBe('0');
    expect(refused.headers.get('x-quota-limit')).toBe('30');

    // A day later it is still the same month.
    await t.advance(86_400_000);
    expect((await t.get<ErrorBody>('/v1/arc/reviews', 'sk_small')).body.error.code).toBe('quota_exceeded');
    await t.advance(untilDecember * 1000 - 86_400_000);
    const december = await t.get('/v1/arc/reviews', 'sk_small');
    expect(december.status).toBe(200);
    expect(december.headers.get('x-quota-remaining')).toBe('29');
  });
});

describe('request log', () => {
  it('records API requests (not control ones) with workspace, never the key', async () => {
    const t = await TestSim.startForTest({
      keys: [{ key: 'sk_secret_value', workspace: 'logged', plan: parsePlan('custom:2:100') }],
    });
    const world = await t.control<WorldBody>('GET', '/_sim/world');
    const asin = world.books[0]!.asin;
    await t.get(`/v1/books/${asin}?marketplace=US`, 'sk_secret_value');
    await t.get('/v1/books/bad', 'sk_secret_value');
    await t.get('/v1/sales', 'sk_secret_value');
    await t.get('/v1/sales', 'sk_unknown');
    const log = await t.control<{ data: LogEntry[] }>('GET', '/_sim/requests');
    expect(JSON.stringify(log)).not.toContain('sk_secret_value');
    expect(log.data.map((e) => [e.path, e.status, e.error_code, e.workspace, e.counted])).toEqual([
      [`/v1/books/${asin}`, 200, null, 'logged', true],
      ['/v1/books/bad', 400, 'invalid_request', 'logged', true],
      ['/v1/sales', 429, 'rate_limited', 'logged', false],
      ['/v1/sales', 401, 'unauthorized', null, false],
    ]);
    const first = log.data[0]!;
    expect(first).toMatchObject({
      method: 'GET',
      query: 'marketplace=US',
      sim_time: '2026-11-21T14:00:10.000Z',
      fault: null,
    });
    expect(Date.parse(first.real_time)).toBeGreaterThan(Date.parse('2026-01-01'));
    expect(log.data.map((e) => e.seq)).toEqual([...log.data.map((e) => e.seq)].sort((a, b) => a - b));

    const since = await t.control<{ data: LogEntry[] }>(
      'GET',
      `/_sim/requests?since_seq=${log.data[1]!.seq}`,
    );
    expect(since.data.map((e) => e.path)).toEqual(['/v1/sales', '/v1/sales']);
    await t.control('DELETE', '/_sim/requests');
    expect((await t.control<{ data: LogEntry[] }>('GET', '/_sim/requests')).data).toEqual([]);
    await t.get('/v1/sales', 'sk_unknown');
    const after = await t.control<{ data: LogEntry[] }>('GET', '/_sim/requests');
    expect(after.data).toHaveLength(1);
    expect(after.data[0]!.seq).toBeGreaterThan(log.data[3]!.seq);
  });

  it('keeps only the newest entries of its ring buffer', async () => {
    const t = await TestSim.startForTest({ requestLogLimit: 3 });
    for (let i = 0; i < 5; i++) await t.get(`/v1/sales?limit=${i + 1}`);
    const log = await t.control<{ data: LogEntry[] }>('GET', '/_sim/requests');
    expect(log.data.map((e) => e.query)).toEqual(['limit=3', 'limit=4', 'limit=5']);
  });
});

describe('control endpoint', () => {
  it('needs the admin token and is never counted', async () => {
    const t = await TestSim.startForTest();
    const noToken = await t.request<ErrorBody>('GET', '/_sim/world', { key: null });
    expect(noToken.status).toBe(401);
    const wrong = await t.request('GET', '/_sim/world', {
      key: null,
      headers: { 'X-Sim-Admin-Token': 'nope' },
    });
    expect(wrong.status).toBe(401);
    for (let i = 0; i < 70; i++) await t.world();
    const reply = await t.get('/v1/sales', STUDIO_KEY);
    expect(reply.headers.get('x-ratelimit-remaining')).toBe('59');
    expect((await t.controlRaw('GET', '/_sim/nothing')).status).toBe(404);
    expect((await t.controlRaw('POST', '/_sim/clock', { advanceMs: -5 })).status).toBe(400);
    expect(
      (await t.controlRaw('POST', '/_sim/keys', { key: 'k', workspace: 'w', plan: 'gold' })).status,
    ).toBe(400);
  });

  it('reports workspaces with their plans', async () => {
    const t = await TestSim.startForTest();
    const world = await t.world();
    expect(world.workspaces).toContainEqual(
      expect.objectContaining({
        workspace: 'demo-studio',
        plan: { name: 'studio', perMinute: 60, perMonth: 100_000 },
      }),
    );
    expect(world.now).toBe('2026-11-21T14:00:10.000Z');
  });
});
