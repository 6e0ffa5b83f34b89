/**
 * Sales days kept beside the rank history, per book and UTC month: one hash field a day
 * (`YYYY-MM-DD` → `units,royalties minor,currency,ad spend minor,currency`). The API revises
 * provisional days, so a later poll's figures replace the earlier ones. A month's hash expires a
 * retention after the month ends; a month of a book is at most 31 small fields (a listpack).
 */
import type { Cluster, Redis } from 'ioredis';
import type { SalesDay } from '../model/observation.ts';
import type { KeyPrefix } from '../util/redis-keys.ts';
import { historyBookKey, historySalesKey } from './keys.ts';

const monthOf = (date: string) => Date.UTC(+date.slice(0, 4), +date.slice(5, 7) - 1, 1);
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function encode(day: SalesDay): string {
  return [
    day.units,
    day.royalties.minor,
    day.royalties.currency,
    day.adSpend.minor,
    day.adSpend.currency,
  ].join(',');
}

function decode(asin: string, marketplace: string, date: string, text: string): SalesDay | undefined {
  const [units, royalties, currency, adSpend, adCurrency] = text.split(',');
  if (currency === undefined || adCurrency === undefined) return undefined;
  return {
    asin,
    marketplace,
    date,
    units: Number(units),
    royalties: { minor: Number(royalties), currency },
    adSpend: { minor: Number(adSpend), currency: adCurrency },
  };
}

export async function recordSalesDays(
  redis: Redis | Cluster,
  prefix: KeyPrefix,
  workspace: string,
  days: readonly SalesDay[],
  nowMs: number,
  retentionMs: number,
): Promise<void> {
  const byKey = new Map<string, { fields: string[]; ttl: number }>();
  for (const day of days) {
    if (!DATE.test(day.date)) continue;
    const month = monthOf(day.date);
    const end = new Date(month);
    const ttl = Date.UTC(end.getUTCFullYear(), end.getUTCMonth() + 1, 1) + retentionMs - nowMs;
    if (ttl <= 0) continue;
    const key = historySalesKey(historyBookKey(prefix, workspace, day.asin, day.marketplace), month);
    const entry = byKey.get(key) ?? { fields: [], ttl };
    entry.fields.push(day.date, encode(day));
    byKey.set(key, entry);
  }
  if (byKey.size === 0) return;
  const pipeline = redis.pipeline();
  for (const [key, { fields, ttl }] of byKey) pipeline.hset(key, ...fields).pexpire(key, ttl);
  await pipeline.exec();
}

/** The book's kept sales days with dates from `from` to `to` (`YYYY-MM-DD`, inclusive), oldest first. */
export async function readSalesDays(
  redis: Redis | Cluster,
  prefix: KeyPrefix,
  book: { workspace: string; asin: string; marketplace: string },
  from: string,
  to: string,
): Promise<SalesDay[]> {
  const bookKey = historyBookKey(prefix, book.workspace, book.asin, book.marketplace);
  const months: number[] = [];
  for (let m = monthOf(from); m <= monthOf(to); ) {
    months.push(m);
    const d = new Date(m);
    m = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  }
  const pipeline = redis.pipeline();
  for (const month of months) pipeline.hgetall(historySalesKey(bookKey, month));
  const replies = (await pipeline.exec()) ?? [];
  const days: SalesDay[] = [];
  for (const [error, fields] of replies) {
    if (error !== null) throw error;
    for (const [date, text] of Object.entries(fields as Record<string, string>)) {
      if (date < from || date > to) continue;
      const day = decode(book.asin, book.marketplace, date, text);
      if (day !== undefined) days.push(day);
    }
  }
  return days.sort((a, b) => a.date.localeCompare(b.date));
}
