import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type BookBody,
  type ErrorBody,
  type LogEntry,
  type Page,
  type SalesBody,
  STUDIO_KEY,
  TestSim,
  type WorldBody,
} from './helpers.ts';

let t: TestSim;
let asin: string;

beforeAll(async () => {
  t = await TestSim.start();
  asin = (await t.control<WorldBody>('GET', '/_sim/world')).books[0]!.asin;
});

beforeEach(async () => {
  await t.control('DELETE', '/_sim/faults');
});

function fault(body: Record<string, unknown>) {
  return t.control<{ ok: boolean }>('POST', '/_sim/faults', body);
}

describe('scripted faults', () => {
  it('status answers the contract error body with Retry-After seconds, for the next request only', async () => {
    await fault({ kind: 'status', status: 503, code: 'unavailable', retryAfter: { seconds: 7 } });
    const reply = await t.get<ErrorBody>(`/v1/books/${asin}`, STUDIO_KEY);
    expect(reply.status).toBe(503);
    expect(reply.body.error.code).toBe('unavailable');
    expect(reply.body.error.request_id).toMatch(/^req_/);
    expect(reply.headers.get('retry-after')).toBe('7');
    expect(reply.headers.get('x-ratelimit-limit')).toBe('60');
    const next = await t.get(`/v1/books/${asin}`, STUDIO_KEY);
    expect(next.status).toBe(200);
    // The injected answer did not reach the service: only the second request counted.
    expect(next.headers.get('x-ratelimit-remaining')).toBe('59');
  });

  it('status 429 can carry Retry-After as an HTTP date on the sim clock', async () => {
    await fault({ kind: 'status', status: 429, retryAfter: { date: true, seconds: 30 } });
    const reply = await t.get<ErrorBody>('/v1/sales');
    expect(reply.status).toBe(429);
    expect(reply.body.error.code).toBe('rate_limited');
    const now = Date.parse((await t.world()).now);
    const at = Date.parse(reply.headers.get('retry-after') ?? '');
    expect(at - now).toBeGreaterThanOrEqual(29_000);
    expect(at - now).toBeLessThanOrEqual(31_000);
  });

  it('html answers a proxy page, 502 by default', async () => {
    await fault({ kind: 'html' });
    await fault({ kind: 'html', status: 504 });
    const first = await t.get('/v1/sales');
    expect(first.status).toBe(502);
    expect(first.headers.get('content-type')).toContain('text/html');
    expect(first.text).toContain('<html>');
    expect((await t.get('/v1/sales')).status).toBe(504);
    expect((await t.get('/v1/sales')).status).toBe(200);
  });

  it('slow delays the answer by delayMs', async () => {
    await fault({ kind: 'slow', delayMs: 400 });
    const started = performance.now();
    const reply = await t.get<BookBody>(`/v1/books/${asin}`);
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
    expect(reply.status).toBe(200);
    expect(reply.body.asin).toBe(asin);
  });

  it('malformed_json sends a truncated JSON body with 200', async () => {
    await fault({ kind: 'malformed_json' });
    const reply = await t.get(`/v1/books/${asin}`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toContain('application/json');
    expect(reply.text.startsWith('{"asin"')).toBe(true);
    expect(() => JSON.parse(reply.text)).toThrow();
  });

  it('extra_field adds unknown fields at the top and in nested objects', async () => {
    await fault({ kind: 'extra_field' });
    const reply = await t.get<Record<string, Record<string, unknown>>>(`/v1/books/${asin}`);
    expect(reply.body).toHaveProperty('x_sim_unknown');
    expect(reply.body.bsr).toHaveProperty('x_sim_unknown');
    expect(reply.body.review_sentiment).toHaveProperty('x_sim_unknown');
    expect(reply.body.bsr).toHaveProperty('rank');
  });

  it('drop_field removes a dotted path, and inside every item of a list', async () => {
    await fault({ kind: 'drop_field', field: 'bsr.rank' });
    const book = await t.get<BookBody>(`/v1/books/${asin}`);
    expect(book.body.bsr).not.toHaveProperty('rank');
    expect(book.body.bsr).toHaveProperty('history');
    await fault({ kind: 'drop_field', field: 'units', pathPrefix: '/v1/sales' });
    const sales = await t.get<Page<SalesBody>>('/v1/sales');
    expect(sales.body.data.length).toBeGreaterThan(0);
    for (const row of sales.body.data) {
      expect(row).not.toHaveProperty('units');
      expect(row).toHaveProperty('royalties');
    }
    expect((await t.controlRaw('POST', '/_sim/faults', { kind: 'drop_field' })).status).toBe(400);
  });

  it('reset_connection destroys the socket', async () => {
    await fault({ kind: 'reset_connection' });
    await expect(t.get('/v1/sales')).rejects.toThrow();
    expect((await t.get('/v1/sales')).status).toBe(200);
    const log = await t.control<{ data: LogEntry[] }>('GET', '/_sim/requests');
    const reset = log.data.filter((entry) => entry.fault === 'reset_connection');
    expect(reset.at(-1)).toMatchObject({ status: null, counted: false });
  });

  it('matches only requests under its path prefix, for count requests', async () => {
    await fault({ kind: 'status', status: 500, pathPrefix: '/v1/sales', count: 2 });
    expect((await t.get(`/v1/books/${asin}`)).status).toBe(200);
    const first = await t.get<ErrorBody>('/v1/sales');
    expect(first.status).toBe(500);
    expect(first.body.error.code).toBe('internal');
    expect((await t.get('/v1/sales')).status).toBe(500);
    expect((await t.get('/v1/sales')).status).toBe(200);
  });

  it('DELETE clears queued faults', async () => {
    await fault({ kind: 'status', status: 500, count: 5 });
    await t.control('DELETE', '/_sim/faults');
    expect((await t.get('/v1/sales')).status).toBe(200);
  });
});

describe('fault rates', () => {
  it('PUT /_sim/faults/rates makes failures random at the given rate, DELETE stops them', async () => {
    await t.control('PUT', '/_sim/faults/rates', { errorRate: 1 });
    for (let i = 0; i < 5; i++) expect([500, 503]).toContain((await t.get('/v1/sales')).status);
    await t.control('PUT', '/_sim/faults/rates', { htmlRate: 1 });
    expect([502, 503, 504]).toContain((await t.get('/v1/sales')).status);
    await t.control('DELETE', '/_sim/faults');
    expect((await t.get('/v1/sales')).status).toBe(200);
    expect((await t.controlRaw('PUT', '/_sim/faults/rates', { errorRate: 2 })).status).toBe(400);
  });

  it('draws the same faults for the same seed and request sequence', async () => {
    const statuses = async () => {
      const sim = await TestSim.startForTest({ seed: 9, faults: { errorRate: 0.3, malformedRate: 0.2 } });
      const out: string[] = [];
      for (let i = 0; i < 30; i++) {
        const reply = await sim.get('/v1/sales?limit=1');
        out.push(`${reply.status}:${reply.body === undefined ? 'broken' : 'json'}`);
      }
      return out;
    };
    const first = await statuses();
    expect(first.some((s) => s.startsWith('50'))).toBe(true);
    expect(first).toContain('200:broken');
    expect(first).toContain('200:json');
    expect(await statuses()).toEqual(first);
  });
});
