/** Every error status of the contract's table, answered by the simulator, becomes its typed error. */
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnalyticsClient,
  ApiError,
  ConflictError,
  collectAll,
  ForbiddenError,
  InvalidRequestError,
  type Marketplace,
  NotFoundError,
  RateLimitedError,
  UnauthorizedError,
  ValidationFailedError,
} from '../../src/api/index.ts';
import { API_SIM, clientFor, iterationRejection, KEYS, rejection } from '../helpers/api-client.ts';
import { useSimulator } from '../helpers/sim.ts';

const fx = useSimulator(API_SIM);
let client: AnalyticsClient;
const opened: AnalyticsClient[] = [];

beforeAll(async () => {
  client = clientFor(fx.sim);
  opened.push(client);
});

afterAll(async () => {
  await Promise.all(opened.map((c) => c.close()));
});

function open(key: string): AnalyticsClient {
  const c = clientFor(fx.sim, key);
  opened.push(c);
  return c;
}

function asin(): string {
  return fx.book().asin;
}

/** The key must appear nowhere: not in the message, not in any field, not in the cause chain. */
function expectNoKey(error: unknown, key: string): void {
  expect(String(error)).not.toContain(key);
  expect(JSON.stringify(error)).not.toContain(key);
  expect(inspect(error, { depth: 10, showHidden: true })).not.toContain(key);
}

describe('4xx answers', () => {
  it('400 from the server (bad marketplace) is an InvalidRequestError with the request id', async () => {
    const error = await rejection(client.getBook(asin(), { marketplace: 'XX' as Marketplace }));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toMatchObject({
      status: 400,
      code: 'invalid_request',
      endpoint: 'GET /v1/books/{asin}',
      retryable: false,
    });
    expect((error as ApiError).requestId).toEqual(expect.any(String));
    expect((error as Error).message).toContain('400 invalid_request');
  });

  it('400 for a limit out of range on a list', async () => {
    // 0, not 500: a limit above the contract's page-size maximum is lowered to it before sending.
    const error = await iterationRejection(client.searchKeywords({ q: 'mystery', limit: 0 }));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toMatchObject({ status: 400, endpoint: 'GET /v1/keywords/search' });
  });

  it('401 for an unknown key, without the key anywhere in the error', async () => {
    const wrong = 'sk_test_wrong_key_does_not_exist_42';
    const error = await rejection(open(wrong).getBook(asin()));
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(error).toMatchObject({ status: 401, code: 'unauthorized', retryable: false });
    expectNoKey(error, wrong);
  });

  it('401 for a key revoked while in use', async () => {
    const key = 'sk_test_to_be_revoked_0123456789';
    await fx.control.addKey({ key, workspace: 'ws-revoked', plan: 'custom:100:1000' });
    const c = open(key);
    expect((await c.getBook(asin())).meta.status).toBe(200);
    await fx.control.revoke(key);
    const error = await rejection(c.getBook(asin()));
    expect(error).toBeInstanceOf(UnauthorizedError);
    expectNoKey(error, key);
  });

  it('403 for an endpoint the plan does not include', async () => {
    const limited = open(KEYS.limited);
    const error = await iterationRejection(limited.searchKeywords({ q: 'mystery' }));
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error).toMatchObject({ status: 403, code: 'forbidden', endpoint: 'GET /v1/keywords/search' });
    // the same key still reads what its plan includes
    expect((await limited.getBook(asin())).meta.status).toBe(200);
  });

  it('404 for an ASIN that is well-formed but unknown', async () => {
    const error = await rejection(client.getBook('B000000000'));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, code: 'not_found', retryable: false });
  });

  it('409 when an Idempotency-Key is reused with a different body', async () => {
    const campaign = fx.campaign();
    const body = { campaign_id: campaign.campaign_id, readers: [{ email: 'lin@example.com', name: 'Lin' }] };
    await client.inviteArcReaders(body, { idempotencyKey: 'conflict-key' });
    const error = await rejection(
      client.inviteArcReaders(
        { ...body, readers: [{ email: 'someone.else@example.com', name: 'Else' }] },
        { idempotencyKey: 'conflict-key' },
      ),
    );
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({ status: 409, code: 'conflict', endpoint: 'POST /v1/arc/invites' });
  });

  it('422 for an invite body that fails validation, with the details', async () => {
    const campaign = fx.world.campaigns[0];
    const error = await rejection(
      client.inviteArcReaders(
        { campaign_id: campaign?.campaign_id ?? 'x', readers: [] },
        { idempotencyKey: 'bad-1' },
      ),
    );
    expect(error).toBeInstanceOf(ValidationFailedError);
    const failed = error as ValidationFailedError;
    expect(failed).toMatchObject({ status: 422, code: 'validation_failed', retryable: false });
    expect(failed.details.length).toBeGreaterThan(0);
    expect(failed.details.map((d) => d.path)).toContain('readers');
    expect(failed.message).toContain(failed.details[0]?.path ?? '?');
  });
});

describe('429 answers', () => {
  it('minute limit: rate_limited with Retry-After in seconds, scope minute, never retried', async () => {
    const tiny = open(KEYS.tiny);
    await tiny.getBook(asin());
    await tiny.getBook(asin());
    const seq = await fx.control.lastSeq();
    const error = await rejection(tiny.getBook(asin()));
    expect(error).toBeInstanceOf(RateLimitedError);
    const limited = error as RateLimitedError;
    expect(limited).toMatchObject({ status: 429, code: 'rate_limited', scope: 'minute', retryable: true });
    expect(limited.retryAfterMs).toBeGreaterThan(0);
    expect(limited.retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(limited.retryAfterMs % 1000).toBe(0);
    expect(limited.rateLimit?.remaining).toBe(0);
    expect(await fx.control.requestsSince(seq)).toHaveLength(1);
  });

  it('monthly quota: quota_exceeded with Retry-After at the month reset, scope month', async () => {
    const quota = open(KEYS.quota);
    await quota.getBook(asin());
    await quota.getBook(asin());
    const error = await rejection(quota.getBook(asin()));
    expect(error).toBeInstanceOf(RateLimitedError);
    const limited = error as RateLimitedError;
    expect(limited).toMatchObject({ status: 429, code: 'quota_exceeded', scope: 'month' });
    const now = new Date(fx.sim.clock.now());
    const monthEnd = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    expect(Math.abs(limited.retryAfterMs - (monthEnd - now.getTime()))).toBeLessThan(5 * 60_000);
    expect(limited.rateLimit?.quotaRemaining).toBe(0);
  });

  it('Retry-After as an HTTP date is read as a delay, for both scopes', async () => {
    await fx.control.fault({
      kind: 'status',
      status: 429,
      code: 'rate_limited',
      retryAfter: { date: true, seconds: 30 },
    });
    const minute = await rejection(client.getBook(asin()));
    expect(minute).toBeInstanceOf(RateLimitedError);
    expect(minute).toMatchObject({ scope: 'minute', code: 'rate_limited' });
    // an HTTP date has whole seconds, so up to one second is lost
    const minuteWait = (minute as RateLimitedError).retryAfterMs;
    expect(minuteWait).toBeGreaterThan(28_000);
    expect(minuteWait).toBeLessThanOrEqual(30_000);

    const dayAndABit = 100_000;
    await fx.control.fault({
      kind: 'status',
      status: 429,
      code: 'quota_exceeded',
      retryAfter: { date: true, seconds: dayAndABit },
    });
    const month = await rejection(client.getBook(asin()));
    expect(month).toMatchObject({ scope: 'month', code: 'quota_exceeded' });
    const monthWait = (month as RateLimitedError).retryAfterMs;
    expect(monthWait).toBeGreaterThan((dayAndABit - 2) * 1000);
    expect(monthWait).toBeLessThanOrEqual(dayAndABit * 1000);
  });

  it('a 429 on a list fails the walk and is not retried', async () => {
    await fx.control.fault({
      kind: 'status',
      status: 429,
      code: 'rate_limited',
      retryAfter: { seconds: 7 },
      pathPrefix: '/v1/keywords/search',
      count: 1,
    });
    const error = await rejection(collectAll(client.searchKeywords({ q: 'mystery', limit: 2 })));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ retryAfterMs: 7_000, scope: 'minute' });
  });

  it('every typed error is an ApiError carrying the endpoint', async () => {
    const error = await rejection(client.getBook('B000000000'));
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).endpoint).toBe('GET /v1/books/{asin}');
    expectNoKey(error, KEYS.main);
  });
});
