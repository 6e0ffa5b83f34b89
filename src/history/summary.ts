/**
 * Daily summaries of the hourly points (`store.ts`) once a day leaves the hourly window: per series
 * and UTC day, the minimum, median and maximum of the hours seen (12 bytes), packed in one string a
 * month (31 days × 12 bytes = 372 bytes a series, at offset `index × 372` as the series hash numbers
 * them). A value is a big-endian uint32 like an hourly point: 0 = not seen, 0xFFFFFFFF = unranked,
 * which sorts after every rank, so a day unranked for some hours has an unranked maximum.
 *
 * One script reads a day's hourly string, writes its summary into the month and only then deletes
 * the day, atomically: a point is never gone before its summary exists, and a crash or a second
 * worker doing the same day finds either the hourly day (and summarises it again, to the same bytes)
 * or its summary. Days are summarised in batches of at most one month per script call, a few calls
 * per poll of the book, so a large backlog (a first run over stored history) spreads over polls.
 */

import type { Cluster, Redis } from 'ioredis';
import { DAY_MS, HOUR_MS } from '../util/time-units.ts';
import { historyCompactedKey, historyDayKey, historyMonthKey } from './keys.ts';

export const POINT_BYTES = 4;
export const DAY_BYTES = 24 * POINT_BYTES;
export const SUMMARY_BYTES = 3 * POINT_BYTES;
export const MONTH_SLOT_BYTES = 31 * SUMMARY_BYTES;
export const NOT_SEEN = 0;
export const UNRANKED = 0xffffffff;
/** A day is summarised this long after it left the hourly window: a poll on a clock behind ours still writes into it. */
export const COMPACT_GRACE_MS = HOUR_MS;
/**
 * Script calls per `compact` that summarised something (a month at most each); the rest of a
 * backlog waits for the book's next poll. Months with nothing to summarise (a first run looks back
 * over the whole retention) cost a few GETs of missing keys and count up to `MAX_CALLS` only.
 */
const MAX_WORKING_CALLS = 2;
const MAX_CALLS = 30;

// KEYS: marker, month, then the month's candidate day keys. ARGV: marker value (yyyymmdd of the last
// candidate), marker TTL, month TTL, then each day key's 0-based day of the month.
const COMPACT = `
local function u32(s, at)
  local a, b, c, d = string.byte(s, at, at + 3)
  return ((a * 256 + b) * 256 + c) * 256 + d
end
local function enc(v)
  return string.char(math.floor(v / 16777216) % 256, math.floor(v / 65536) % 256, math.floor(v / 256) % 256, v % 256)
end
local month = redis.call('GET', KEYS[2]) or ''
local chunks = {}
local count = math.floor(#month / ${MONTH_SLOT_BYTES})
for i = 1, count do chunks[i] = string.sub(month, (i - 1) * ${MONTH_SLOT_BYTES} + 1, i * ${MONTH_SLOT_BYTES}) end
local empty = string.rep('\\0', ${MONTH_SLOT_BYTES})
local done = {}
for k = 3, #KEYS do
  local day = redis.call('GET', KEYS[k])
  if day then
    local at = tonumber(ARGV[k + 1]) * ${SUMMARY_BYTES}
    for s = 1, math.floor(#day / ${DAY_BYTES}) do
      local values = {}
      for h = 0, 23 do
        local v = u32(day, (s - 1) * ${DAY_BYTES} + h * ${POINT_BYTES} + 1)
        if v ~= 0 then values[#values + 1] = v end
      end
      if #values > 0 then
        table.sort(values)
        for j = count + 1, s do chunks[j] = empty end
        if s > count then count = s end
        local summary = enc(values[1]) .. enc(values[math.floor((#values + 1) / 2)]) .. enc(values[#values])
        chunks[s] = string.sub(chunks[s], 1, at) .. summary .. string.sub(chunks[s], at + ${SUMMARY_BYTES} + 1)
      end
    end
    done[#done + 1] = KEYS[k]
  end
end
if #done > 0 then
  redis.call('SET', KEYS[2], table.concat(chunks), 'PX', ARGV[3])
  redis.call('DEL', unpack(done))
end
local marker = redis.call('GET', KEYS[1])
if not marker or marker < ARGV[1] then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return #done
`;

export interface DaySummary {
  /** The UTC day's start. */
  day: number;
  /** Best (lowest) rank of the day; null when unranked every hour seen. */
  min: number | null;
  median: number | null;
  /** Worst rank of the day; null when unranked in some hour. */
  max: number | null;
}

const startOfDay = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;
const startOfMonth = (ms: number) => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
};
const nextMonth = (ms: number) => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
};
const ymd = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');
const fromYmd = (text: string) => Date.UTC(+text.slice(0, 4), +text.slice(4, 6) - 1, +text.slice(6, 8));

export interface Tiers {
  hourlyMs: number;
  retentionMs: number;
}

/** The last day `compact` may summarise at `nowMs`: its hourly window and the grace are over. */
export function lastCompactableDay(nowMs: number, hourlyMs: number): number {
  return startOfDay(nowMs - hourlyMs - COMPACT_GRACE_MS) - DAY_MS;
}

/**
 * Summarises the book's days that left the hourly window and were not summarised yet; returns how
 * many hourly days it turned into summaries. `done` caches, per process, the last day known done.
 */
export async function compactBook(
  redis: Redis | Cluster,
  bookKey: string,
  nowMs: number,
  tiers: Tiers,
  done: Map<string, number>,
): Promise<number> {
  const last = lastCompactableDay(nowMs, tiers.hourlyMs);
  if ((done.get(bookKey) ?? Number.NEGATIVE_INFINITY) >= last) return 0;
  const markerKey = historyCompactedKey(bookKey);
  const marker = await redis.get(markerKey);
  const oldest = startOfDay(nowMs - tiers.retentionMs);
  let start = marker === null ? oldest : Math.max(oldest, fromYmd(marker) + DAY_MS);
  let summarised = 0;
  let working = 0;
  for (let call = 0; call < MAX_CALLS && working < MAX_WORKING_CALLS && start <= last; call++) {
    const month = startOfMonth(start);
    const end = Math.min(last, nextMonth(start) - DAY_MS);
    const days: number[] = [];
    for (let day = start; day <= end; day += DAY_MS) days.push(day);
    const monthTtl = nextMonth(month) + tiers.retentionMs - nowMs;
    const count = Number(
      await redis.eval(
        COMPACT,
        2 + days.length,
        markerKey,
        historyMonthKey(bookKey, month),
        ...days.map((day) => historyDayKey(bookKey, day)),
        ymd(end),
        tiers.retentionMs,
        Math.max(1, monthTtl),
        ...days.map((day) => (day - month) / DAY_MS),
      ),
    );
    if (count > 0) working += 1;
    summarised += count;
    start = end + DAY_MS;
  }
  if (start > last) done.set(bookKey, last);
  return summarised;
}

const decode = (value: number) => (value === UNRANKED ? null : value);

/** The summaries of the book's series (by index) for the days in `days` that have one. */
export async function readSummaries(
  redis: Redis | Cluster,
  bookKey: string,
  days: readonly number[],
): Promise<Map<number, DaySummary[]>> {
  const months = [...new Set(days.map(startOfMonth))];
  const out = new Map<number, DaySummary[]>();
  if (months.length === 0) return out;
  const strings = await redis.mgetBuffer(...months.map((m) => historyMonthKey(bookKey, m)));
  const byMonth = new Map(months.map((m, i) => [m, strings[i] ?? null]));
  for (const day of days) {
    const month = startOfMonth(day);
    const bytes = byMonth.get(month);
    if (bytes === null || bytes === undefined) continue;
    const slot = ((day - month) / DAY_MS) * SUMMARY_BYTES;
    for (let index = 0; (index + 1) * MONTH_SLOT_BYTES <= bytes.length; index++) {
      const at = index * MONTH_SLOT_BYTES + slot;
      const min = bytes.readUInt32BE(at);
      if (min === NOT_SEEN) continue;
      const summary = {
        day,
        min: decode(min),
        median: decode(bytes.readUInt32BE(at + POINT_BYTES)),
        max: decode(bytes.readUInt32BE(at + 2 * POINT_BYTES)),
      };
      const list = out.get(index);
      if (list === undefined) out.set(index, [summary]);
      else list.push(summary);
    }
  }
  return out;
}
