import { describe, expect, it } from 'vitest';
import { idempotencyKeyOf, planBatches } from '../../src/arc/batches.ts';
import type { Reader } from '../../src/arc/readers.ts';

function readers(n: number, from = 0): Reader[] {
  return Array.from({ length: n }, (_, i) => ({
    row: i + 2,
    email: `reader${String(from + i).padStart(4, '0')}@example.com`,
    name: `Reader ${from + i}`,
  }));
}

describe('planBatches', () => {
  it('cuts readers sorted by email into batches of at most 100', () => {
    const shuffled = readers(250).reverse();
    const batches = planBatches('camp-1', shuffled);
    expect(batches.map((b) => [b.number, b.readers.length])).toEqual([
      [1, 100],
      [2, 100],
      [3, 50],
    ]);
    expect(batches[0]?.readers[0]?.email).toBe('reader0000@example.com');
    expect(batches[2]?.readers.at(-1)?.email).toBe('reader0249@example.com');
  });

  it('gives the same keys for the same readers in any row order, and other keys for another campaign', () => {
    const keys = (list: Reader[], campaign = 'camp-1') =>
      planBatches(campaign, list).map((b) => b.idempotencyKey);
    const first = keys(readers(150));
    expect(keys([...readers(150)].reverse())).toEqual(first);
    expect(new Set(first).size).toBe(2);
    expect(keys(readers(150), 'camp-2')).not.toEqual(first);
    for (const key of first) expect(key).toMatch(/^shelfwatch-arc-[0-9a-f]{40}$/);
  });

  it('derives a key from the campaign and the sorted emails only', () => {
    expect(idempotencyKeyOf('c', ['b@x.co', 'a@x.co'])).toBe(idempotencyKeyOf('c', ['a@x.co', 'b@x.co']));
    expect(idempotencyKeyOf('c', ['a@x.co'])).not.toBe(idempotencyKeyOf('c', ['a@x.co', 'b@x.co']));
    expect(() => planBatches('c', readers(1), 101)).toThrow(RangeError);
  });
});
