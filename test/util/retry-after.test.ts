import { describe, expect, it } from 'vitest';
import { parseRetryAfterMs } from '../../src/util/retry-after.ts';

describe('parseRetryAfterMs (the one Retry-After reading)', () => {
  const now = Date.parse('2026-11-21T14:00:00Z');

  it('reads delta-seconds, trimmed, the first value of a repeated header', () => {
    expect(parseRetryAfterMs('7', now)).toBe(7_000);
    expect(parseRetryAfterMs('0', now)).toBe(0);
    expect(parseRetryAfterMs(' 30 ', now)).toBe(30_000);
    expect(parseRetryAfterMs(['4', '9'], now)).toBe(4_000);
  });

  it('reads an HTTP-date relative to now, never negative', () => {
    expect(parseRetryAfterMs('Sat, 21 Nov 2026 14:01:30 GMT', now)).toBe(90_000);
    expect(parseRetryAfterMs('Sat, 21 Nov 2026 13:00:00 GMT', now)).toBe(0);
    // The obsolete forms RFC 9110 still asks a recipient to read.
    expect(parseRetryAfterMs('Saturday, 21-Nov-26 14:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfterMs('Sun Nov 22 14:00:20 2026', now)).toBeGreaterThan(0);
  });

  it('gives undefined for absent or unreadable values, never a guess', () => {
    expect(parseRetryAfterMs(undefined, now)).toBeUndefined();
    expect(parseRetryAfterMs('', now)).toBeUndefined();
    expect(parseRetryAfterMs([], now)).toBeUndefined();
    expect(parseRetryAfterMs('soon', now)).toBeUndefined();
    expect(parseRetryAfterMs('-5', now)).toBeUndefined();
    expect(parseRetryAfterMs('1.5', now)).toBeUndefined();
    expect(parseRetryAfterMs('2026-11-21T14:01:00Z', now)).toBeUndefined();
    expect(parseRetryAfterMs('Sat, 99 Nov 2026 14:01:30 GMT', now)).toBeUndefined();
  });
});
