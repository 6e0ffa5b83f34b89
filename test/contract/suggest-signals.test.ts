/** Rate-limit signals probe finds in bodies and "used" headers (src/tools/probe/suggest-signals.ts, suggest-wire.ts). */
import { describe, expect, it } from 'vitest';
import { defaultContract, parseContract } from '../../src/api/index.ts';
import { type RecordedAnswer, suggestContract } from '../../src/tools/probe/index.ts';
import { bodySignals } from '../../src/tools/probe/suggest-signals.ts';

let n = 0;
const answer = (body: Record<string, unknown>, headers: Record<string, string> = {}): RecordedAnswer => ({
  endpoint: 'keywordSearch',
  method: 'GET',
  path: '/v1/keywords/search?q=book',
  status: 200,
  headers,
  body: { data: [{ keyword: 'a book', search_volume: 10, competition: 0.1, intent_score: 0.2 }], ...body },
});
const meta = (quota: Record<string, unknown>) => ({ meta: { quota, requestId: `req_${++n}` } });

describe('signals in the body', () => {
  it('finds the quota object every answer states, its reset format, and a request id that changes', () => {
    const answers = [
      answer(meta({ limit: 1000, used: 3, resetsAt: 1_796_083_200 })),
      answer(meta({ limit: 1000, used: 4, resetsAt: 1_796_083_200 })),
    ];
    expect(bodySignals(answers)).toEqual({
      quotaLimit: 'meta.quota.limit',
      quotaUsed: 'meta.quota.used',
      quotaReset: { body: 'meta.quota.resetsAt', format: 'epoch_s' },
      requestId: 'meta.requestId',
    });
    const { contract, undecided } = suggestContract(defaultContract(), answers);
    expect(contract.rateLimit).toMatchObject({
      quotaLimit: { body: 'meta.quota.limit' },
      quotaUsed: { body: 'meta.quota.used' },
      quotaRemaining: null,
      quotaReset: { body: 'meta.quota.resetsAt', format: 'epoch_s' },
    });
    expect(contract.requestIdBody).toBe('meta.requestId');
    expect(undecided.some((line) => line.includes('read from the body at "meta.quota.limit"'))).toBe(true);
    expect(parseContract(contract, 'suggested.yaml').ok).toBe(true);
  });

  it('takes nothing one answer lacks, nor an id that never changes', () => {
    const answers = [
      answer({ meta: { quota: { limit: 1000, remaining: 9 } } }),
      answer({ meta: { requestId: 'r' } }),
    ];
    expect(bodySignals(answers)).toEqual({});
    expect(bodySignals([answer({ meta: { requestId: 'x' } }), answer({ meta: { requestId: 'x' } })])).toEqual(
      {},
    );
  });

  it('a "used" header where "remaining" is not: used, remaining null', () => {
    const headers = { 'x-quota-limit': '1000', 'x-quota-used': '12' };
    const { contract } = suggestContract(defaultContract(), [answer({}, headers)]);
    expect(contract.rateLimit).toMatchObject({ quotaUsed: 'x-quota-used', quotaRemaining: null });
  });

  it('a rate per second (a fraction) is said per second, not read as a count per minute', () => {
    const headers = { 'x-amzn-ratelimit-limit': '0.5', 'x-amzn-requestid': 'r1' };
    const { contract, undecided } = suggestContract(defaultContract(), [answer({}, headers)]);
    expect(contract.rateLimit).toMatchObject({
      per: 'second',
      limit: 'x-amzn-ratelimit-limit',
      remaining: null,
    });
    expect(
      undecided.some((line) =>
        line.includes('a fraction, so a rate a second: read per second (per: second, 30 a minute)'),
      ),
    ).toBe(true);
    const load = parseContract(contract, 'suggested.yaml');
    expect(load.ok).toBe(true);
    if (load.ok) expect(load.contract.rateLimit({ 'x-amzn-ratelimit-limit': '0.5' }, 0).limit).toBe(30);
  });
});
