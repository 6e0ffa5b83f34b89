/**
 * Readers in batches of at most 100 (the API's limit per request), each with an Idempotency-Key
 * that is a hash of the campaign and the batch's sorted emails. Readers are sorted by email before
 * they are cut into batches, so the same file (in any row order) gives the same batches and keys
 * on every run, and the API answers a re-run with its first answer instead of inviting again.
 */
import { createHash } from 'node:crypto';
import type { Reader } from './readers.ts';

export const MAX_BATCH_SIZE = 100;

export interface Batch {
  /** 1-based, in sending order. */
  number: number;
  idempotencyKey: string;
  readers: Reader[];
}

/** Code-point order: the same on every machine, unlike a locale compare. */
function byEmail(a: Reader, b: Reader): number {
  const x = a.email.toLowerCase();
  const y = b.email.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

export function idempotencyKeyOf(campaignId: string, emails: readonly string[]): string {
  const sorted = [...emails].sort();
  const hash = createHash('sha256').update(campaignId).update('\u0000').update(sorted.join('\n'));
  return `shelfwatch-arc-${hash.digest('hex').slice(0, 40)}`;
}

export function planBatches(campaignId: string, readers: readonly Reader[], size = MAX_BATCH_SIZE): Batch[] {
  if (!Number.isSafeInteger(size) || size < 1 || size > MAX_BATCH_SIZE) {
    throw new RangeError(`batch size must be 1 to ${MAX_BATCH_SIZE}, got ${size}`);
  }
  const sorted = [...readers].sort(byEmail);
  const batches: Batch[] = [];
  for (let start = 0; start < sorted.length; start += size) {
    const chunk = sorted.slice(start, start + size);
    batches.push({
      number: batches.length + 1,
      idempotencyKey: idempotencyKeyOf(
        campaignId,
        chunk.map((reader) => reader.email),
      ),
      readers: chunk,
    });
  }
  return batches;
}
