/**
 * Failures that may pass (5xx, proxy pages, broken JSON, timeouts, resets), the one quick retry,
 * the budget hook, and cancellation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnalyticsClient,
  collectAll,
  createAnalyticsClient,
  type OutboundRequest,
  TransientError,
  UnauthorizedError,
} from '../../src/api/index.ts';
import { API_SIM, clientFor, KEYS, rejection } from '../helpers/api-client.ts';
import { useSimulator } from '../helpers/sim.ts';

const fx = useSimulator({ ...API_SIM, clearFaultsAfterEach: true });
let client: AnalyticsClient;
const outbound: OutboundRequest[] = [];

beforeAll(async () => {
  client = clientFor(fx.sim, KEYS.main, {
    beforeRequest: (req) => {
      outbound.push(req);
    },
  });
});

afterAll(async () => {
  await client?.close();
});

function asin(): string {
  return fx.book().asin;
}

describe('5xx and the one quick retry', () => {
  it('absorbs a single 503: two requests reach the server, the caller gets the book', async () => {
    const seq = await fx.control.lastSeq();
    const before = outbound.length;
    await fx.control.fault({
      kind: 'status',
      status: 503,
      code: 'unavailable',
      count: 1,
      pathPrefix: '/v1/books',
    });
    const res = await client.getBook(asin());
    expect(res.data.asin).toBe(asin());
    expect(res.meta.attempts).toBe(2);
    expect(outbound.slice(before).map((r) => r.attempt)).toEqual([1, 2]);
    expect((await fx.control.requestsSince(seq)).map((r) => r.status)).toEqual([503, 200]);
  });

  it('does not absorb two: a TransientError after exactly two requests', async () => {
    const seq = await fx.control.lastSeq();
    await fx.control.fault({
      kind: 'status',
      status: 500,
      code: 'internal',
      count: 2,
      pathPrefix: '/v1/books',
    });
    const error = await rejection(client.getBook(asin()));
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toMatchObject({ status: 500, code: 'internal', reason: 'server_error', retryable: true });
    expect((await fx.control.requestsSince(seq)).map((r) => r.status)).toEqual([500, 500]);
  });

  it('does not retry quickly when a 503 asks for a longer pause, and reports the pause', async () => {
    const seq = await fx.control.lastSeq();
    await fx.control.fault({
      kind: 'status',
      status: 503,
      code: 'unavailable',
      retryAfter: { seconds: 7 },
      count: 1,
    });
    const error = await rejection(client.getBook(asin()));
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toMatchObject({ status: 503, code: 'unavailable', retryAfterMs: 7_000 });
    expect(await fx.control.requestsSince(seq)).toHaveLength(1);
  });

  it('never retries the POST', async () => {
    const campaign = fx.world.campaigns[0];
    const seq = await fx.control.lastSeq();
    await fx.control.fault({
      kind: 'status',
      status: 503,
      code: 'unavailable',
      count: 1,
      pathPrefix: '/v1/arc/invites',
    });
    const body = {
      campaign_id: campaign?.campaign_id ?? 'x',
      readers: [{ email: 'kim@example.com', name: 'Kim' }],
    };
    const error = await rejection(client.inviteArcReaders(body, { idempotencyKey: 'post-no-retry' }));
    expect(error).toBeInstanceOf(TransientError);
    expect(await fx.control.requestsSince(seq)).toHaveLength(1);
    // the caller repeats with the same key, which is safe
    const res = await client.inviteArcReaders(body, { idempotencyKey: 'post-no-retry' });
    expect(res.data.data[0]?.email).toBe('kim@example.com');
  });

  it('retries a failed page once inside a walk; the retry counts as a request', async () => {
    const q = fx.world.books[0]?.keywords[0]?.split(' ')[0] ?? 'mystery';
    const clean = await collectAll(client.searchKeywords({ q, limit: 2 }));
    expect(clean.pages).toBeGreaterThan(1);
    await fx.control.fault({ kind: 'status', status: 502, count: 1, pathPrefix: '/v1/keywords/search' });
    const before = outbound.length;
    const retried = await collectAll(client.searchKeywords({ q, limit: 2 }));
    expect(retried.items).toEqual(clean.items);
    expect(retried.requests).toBe(clean.pages + 1);
    expect(outbound.length - before).toBe(clean.pages + 1);
    expect(outbound.slice(before, before + 2).map((r) => [r.page, r.attempt])).toEqual([
      [0, 1],
      [0, 2],
    ]);
  });
});

describe('bodies that are not the contract', () => {
  it('an HTML 502 from a proxy is a TransientError html_body', async () => {
    await fx.control.fault({ kind: 'html', status: 502, count: 2 });
    const error = await rejection(client.getBook(asin()));
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toMatchObject({ status: 502, reason: 'html_body', code: 'html_body' });
    expect((error as TransientError).bodySnippet).toMatch(/</);
  });

  it('malformed JSON on a 200 is a TransientError malformed_json with the parser error as cause', async () => {
    await fx.control.fault({ kind: 'malformed_json', count: 2 });
    const error = await rejection(client.getBook(asin()));
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toMatchObject({ status: 200, reason: 'malformed_json' });
    expect((error as Error).cause).toBeInstanceOf(SyntaxError);
  });

  it('a connection reset is a TransientError network', async () => {
    await fx.control.fault({ kind: 'reset_connection', count: 2 });
    const error = await rejection(client.getBook(asin()));
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toMatchObject({ status: undefined, reason: 'network', code: 'network' });
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  it('a refused connection is a TransientError network', async () => {
    const closed = createAnalyticsClient({
      baseUrl: 'http://127.0.0.1:1',
      apiKey: KEYS.main,
      transientRetryDelayMs: 0,
    });
    try {
      const error = await rejection(closed.getBook(asin()));
      expect(error).toMatchObject({ reason: 'network', retryable: true });
    } finally {
      await closed.close();
    }
  });
});

describe('timeouts', () => {
  it('a slow answer beyond headersMs is a TransientError timeout', async () => {
    const impatient = clientFor(fx.sim, KEYS.main, { timeouts: { headersMs: 200 } });
    try {
      await fx.control.fault({ kind: 'slow', delayMs: 8_000, count: 2 });
      const started = performance.now();
      const error = await rejection(impatient.getBook(asin()));
      expect(error).toBeInstanceOf(TransientError);
      expect(error).toMatchObject({ reason: 'timeout', code: 'timeout', status: undefined });
      // Two attempts, each cut off long before the 8 s the server takes. undici's headers timer
      // ticks about every 500 ms, so 200 ms fires after up to ~1 s.
      expect(performance.now() - started).toBeLessThan(4_000);
    } finally {
      await impatient.close();
    }
  });
});

describe('beforeRequest', () => {
  it('is called once per page, and its throw aborts the walk unchanged before the request', async () => {
    const q = fx.world.books[0]?.keywords[0]?.split(' ')[0] ?? 'mystery';
    class BudgetExhausted extends Error {}
    const seen: OutboundRequest[] = [];
    const budgeted = clientFor(fx.sim, KEYS.main, {
      beforeRequest: (req) => {
        if (seen.length === 2) throw new BudgetExhausted('no budget left');
        seen.push(req);
      },
    });
    try {
      const seq = await fx.control.lastSeq();
      const error = await rejection(collectAll(budgeted.searchKeywords({ q, limit: 1 })));
      expect(error).toBeInstanceOf(BudgetExhausted);
      expect(seen.map((r) => r.page)).toEqual([0, 1]);
      expect(await fx.control.requestsSince(seq)).toHaveLength(2);
    } finally {
      await budgeted.close();
    }
  });

  it('may be async: the request waits for it', async () => {
    let released = false;
    const gated = clientFor(fx.sim, KEYS.main, {
      beforeRequest: async () => {
        await new Promise((resolve) => setImmediate(resolve));
        released = true;
      },
    });
    try {
      const res = await gated.getBook(asin());
      expect(released).toBe(true);
      expect(res.meta.status).toBe(200);
    } finally {
      await gated.close();
    }
  });
});

describe('cancellation', () => {
  it('an AbortSignal aborts a slow request with the abort reason, not an ApiError', async () => {
    await fx.control.fault({ kind: 'slow', delayMs: 3_000, count: 1 });
    const controller = new AbortController();
    // abort shortly after the request has passed the budget hook, while the server is still waiting
    const aborting = clientFor(fx.sim, KEYS.main, {
      beforeRequest: () => {
        setTimeout(() => controller.abort(), 50);
      },
    });
    try {
      const started = performance.now();
      const error = await rejection(aborting.getBook(asin(), { signal: controller.signal }));
      expect(error).not.toBeInstanceOf(TransientError);
      expect(error).toBe(controller.signal.reason);
      expect((error as Error).name).toBe('AbortError');
      expect(performance.now() - started).toBeLessThan(2_000);
    } finally {
      await aborting.close();
    }
  });

  it('an already aborted signal spends no request', async () => {
    const before = outbound.length;
    const error = await rejection(client.getBook(asin(), { signal: AbortSignal.abort() }));
    expect((error as Error).name).toBe('AbortError');
    expect(outbound.length).toBe(before);
  });

  it('a client error is still an error after a transient one: no retry of 401', async () => {
    const wrong = clientFor(fx.sim, 'sk_test_nobody_knows_me_000000');
    try {
      const seq = await fx.control.lastSeq();
      const error = await rejection(wrong.getBook(asin()));
      expect(error).toBeInstanceOf(UnauthorizedError);
      expect(await fx.control.requestsSince(seq)).toHaveLength(1);
    } finally {
      await wrong.close();
    }
  });
});
