/**
 * Bodies that drift from the assumed contract: extra fields pass, missing or wrong fields are
 * reported with their path; a looping cursor is stopped, the key is scrubbed from echoes, the
 * headers are the contract's. Plus the Retry-After parser.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnalyticsClient,
  ApiError,
  bookSchema,
  collectAll,
  createAnalyticsClient,
  RateLimitedError,
  SchemaMismatchError,
} from '../../src/api/index.ts';
import { API_SIM, clientFor, KEYS, rejection } from '../helpers/api-client.ts';
import { useSimulator } from '../helpers/sim.ts';

const fx = useSimulator({ ...API_SIM, clearFaultsAfterEach: true });
let client: AnalyticsClient;

beforeAll(async () => {
  client = clientFor(fx.sim);
});

afterAll(async () => {
  await client?.close();
});

function asin(): string {
  return fx.book().asin;
}

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

describe('drift in a successful body', () => {
  it('accepts an unknown extra field and leaves it out of the parsed value', async () => {
    await fx.control.fault({ kind: 'extra_field', count: 1, pathPrefix: '/v1/books' });
    const res = await client.getBook(asin());
    expect(res.data.asin).toBe(asin());
    expect(Object.keys(res.data).sort()).toEqual(Object.keys(bookSchema.shape).sort());
  });

  it('reports a missing nested field with its path, and is not retried', async () => {
    const seq = await fx.control.lastSeq();
    await fx.control.fault({ kind: 'drop_field', field: 'bsr.rank', count: 1, pathPrefix: '/v1/books' });
    const error = await rejection(client.getBook(asin()));
    expect(error).toBeInstanceOf(SchemaMismatchError);
    const mismatch = error as SchemaMismatchError;
    expect(mismatch).toMatchObject({ status: 200, code: 'schema_mismatch', retryable: false });
    expect(mismatch.issues[0]?.path).toBe('bsr.rank');
    expect(mismatch.message).toContain('bsr.rank');
    expect(await fx.control.requestsSince(seq)).toHaveLength(1);
  });

  it('reports a field missing from list items as data[0].units', async () => {
    await fx.control.fault({ kind: 'drop_field', field: 'units', count: 1, pathPrefix: '/v1/sales' });
    const now = fx.sim.clock.now();
    const pages = client.listSales({
      from: isoDay(now - 5 * 86_400_000),
      to: isoDay(now - 86_400_000),
      limit: 5,
    });
    const error = await rejection(collectAll(pages));
    expect(error).toBeInstanceOf(SchemaMismatchError);
    const mismatch = error as SchemaMismatchError;
    expect(mismatch.issues[0]?.path).toBe('data[0].units');
    expect(mismatch.issues.map((i) => i.path)).toContain('data[1].units');
    expect(mismatch.message).toContain('data[0].units');
  });
});

describe('drift in a keywords answer (items checked by a loop, not zod)', () => {
  it('accepts unknown fields on the answer and its items, and leaves them out', async () => {
    await fx.control.fault({ kind: 'extra_field', count: 1, pathPrefix: `/v1/books/${asin()}/keywords` });
    const res = await client.getBookKeywords(asin());
    expect(Object.keys(res.data).sort()).toEqual(['asin', 'data']);
    expect(res.data.data.length).toBeGreaterThan(0);
    for (const k of res.data.data) {
      expect(Object.keys(k)).toEqual(['keyword', 'rank', 'search_volume', 'traffic_share']);
    }
  });

  it('reports an item missing its rank as data[0].rank, every item listed, not retried', async () => {
    const seq = await fx.control.lastSeq();
    await fx.control.fault({
      kind: 'drop_field',
      field: 'rank',
      count: 1,
      pathPrefix: `/v1/books/${asin()}`,
    });
    const error = await rejection(client.getBookKeywords(asin()));
    expect(error).toBeInstanceOf(SchemaMismatchError);
    const mismatch = error as SchemaMismatchError;
    expect(mismatch).toMatchObject({ status: 200, code: 'schema_mismatch', retryable: false });
    expect(mismatch.issues[0]).toEqual({
      path: 'data[0].rank',
      message: 'Invalid input: expected number, received undefined',
      field: 'bookKeywords.keywords[0].rank',
      found: 'nothing (the field is missing)',
    });
    expect(mismatch.issues.map((i) => i.path)).toContain('data[1].rank');
    expect(mismatch.message).toContain('at data[0].rank: Invalid input: expected number, received undefined');
    expect(await fx.control.requestsSince(seq)).toHaveLength(1);
  });
});

describe('against a bare HTTP server', () => {
  // The simulator never loops, echoes a key or shows request headers, so a bare HTTP server plays
  // the API here, answering with whatever the test sets in `answer`.
  let server: Server;
  let url: string;
  let seen: IncomingHttpHeaders[] = [];
  let answer: (res: ServerResponse) => void = (res) => res.end();

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.headers);
      req.resume();
      req.on('end', () => answer(res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/base/`;
  });

  afterEach(() => {
    seen = [];
  });

  afterAll(async () => {
    await new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())));
  });

  function json(status: number, body: unknown): (res: ServerResponse) => void {
    return (res) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
  }

  function bare(): AnalyticsClient {
    return createAnalyticsClient({
      baseUrl: url,
      apiKey: KEYS.main,
      version: '9.9.9',
      transientRetryDelayMs: 0,
    });
  }

  it('sends the contract headers below the base path; the POST adds its content type and key', async () => {
    const c = bare();
    try {
      answer = json(200, { data: [], next_cursor: null });
      await collectAll(c.searchKeywords({ q: 'x' }));
      answer = json(201, { campaign_id: 'c1', data: [] });
      await c.inviteArcReaders(
        { campaign_id: 'c1', readers: [{ email: 'a@b.c', name: 'A' }] },
        { idempotencyKey: 'k-1' },
      );
    } finally {
      await c.close();
    }
    expect(seen[0]).toMatchObject({
      authorization: `Bearer ${KEYS.main}`,
      accept: 'application/json',
      'user-agent': 'shelfwatch/9.9.9',
    });
    expect(seen[0]?.['idempotency-key']).toBeUndefined();
    expect(seen[1]).toMatchObject({ 'content-type': 'application/json', 'idempotency-key': 'k-1' });
  });

  it('stops a cursor that comes back a second time with a SchemaMismatchError, not an endless walk', async () => {
    const c = bare();
    try {
      answer = json(200, { data: [], next_cursor: 'same' });
      const error = await rejection(collectAll(c.searchKeywords({ q: 'x' })));
      expect(error).toBeInstanceOf(SchemaMismatchError);
      expect(error).toMatchObject({ code: 'repeated_cursor' });
      expect((error as SchemaMismatchError).issues[0]?.path).toBe('next_cursor');
      expect(seen).toHaveLength(2);
    } finally {
      await c.close();
    }
  });

  it('scrubs the key out of anything the server echoes back', async () => {
    const c = bare();
    try {
      answer = json(401, { error: { code: 'unauthorized', message: `unknown key ${KEYS.main}` } });
      const denied = await rejection(c.getBook('B0CJ4XQ2ZK'));
      answer = (res) => {
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end(`<html>upstream refused ${KEYS.main}</html>`);
      };
      const proxied = await rejection(c.getBook('B0CJ4XQ2ZK'));
      for (const error of [denied, proxied]) {
        expect(error).toBeInstanceOf(ApiError);
        expect(JSON.stringify(error)).not.toContain(KEYS.main);
        expect(inspect(error, { depth: 10, showHidden: true })).not.toContain(KEYS.main);
      }
      expect((denied as ApiError).message).toContain('unknown key [redacted]');
      expect((proxied as ApiError).bodySnippet).toContain('[redacted]');
    } finally {
      await c.close();
    }
  });

  it('a 429 without Retry-After waits for the minute reset, never "now"', async () => {
    const c = bare();
    try {
      const resetSeconds = Math.floor(Date.now() / 1000) + 42;
      answer = (res) => {
        res.writeHead(429, { 'content-type': 'application/json', 'x-ratelimit-reset': String(resetSeconds) });
        res.end(JSON.stringify({ error: { code: 'rate_limited', message: 'slow down' } }));
      };
      const error = await rejection(c.getBook('B0CJ4XQ2ZK'));
      expect(error).toBeInstanceOf(RateLimitedError);
      const wait = (error as RateLimitedError).retryAfterMs;
      expect(wait).toBeGreaterThan(40_000);
      expect(wait).toBeLessThanOrEqual(42_000);
    } finally {
      await c.close();
    }
  });
});
