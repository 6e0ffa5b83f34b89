/**
 * Rank and BSR history kept for charts, tiered: hourly points for a recent window (`hourlyMs`),
 * then one summary a day (min, median, max; `summary.ts`) until the retention ends.
 *
 * Hourly points: one Redis string per book, marketplace and UTC day, of fixed-width 4-byte points
 * (24 per series: a series' day is 96 bytes at offset `index × 96`), and one hash per book numbering
 * its series (`bsr`, each keyword, each comp). A point is a big-endian uint32: 0 = not seen,
 * 0xFFFFFFFF = unranked (null), else the rank. After the hourly window a worker summarises the day
 * (12 bytes a series) and deletes it; each day string also expires a retention after its day ends,
 * so a day no worker summarised (a book no longer polled) is dropped when its summary would have
 * been. A year of 100 keywords and BSR takes 30 hourly days × 9.7 KB + 12 months × 37.6 KB ≈ 740 KB
 * per book (90 hourly days took 873 KB). Writes are idempotent (a re-judged hour writes the same bytes).
 *
 * Keys (the prefix's hash tag keeps a book's keys in one slot for the scripts):
 *   <prefix>:hist:<ws>:<asin>:<mp>:series        hash    name → index   TTL = retention + 31 d, refreshed
 *   <prefix>:hist:<ws>:<asin>:<mp>:<YYYYMMDD>    string  hourly points  TTL = day end + retention
 *   <prefix>:hist:<ws>:<asin>:<mp>:m<YYYYMM>     string  day summaries  TTL = month end + retention
 *   <prefix>:hist:<ws>:<asin>:<mp>:compacted     string  last day summarised
 */

import type { Cluster, Redis } from 'ioredis';
import type { RankPoint, SalesDay } from '../model/observation.ts';
import type { KeyPrefix } from '../util/redis-keys.ts';
import { DAY_MS, HOUR_MS } from '../util/time-units.ts';
import { historyBookKey, historyDayKey, historySeriesKey } from './keys.ts';
import { readSalesDays, recordSalesDays } from './sales.ts';
import {
  compactBook,
  DAY_BYTES,
  type DaySummary,
  NOT_SEEN,
  POINT_BYTES,
  readSummaries,
  type Tiers,
  UNRANKED,
} from './summary.ts';

export const DEFAULT_HISTORY_RETENTION_MS = 730 * DAY_MS;
export const DEFAULT_HOURLY_MS = 30 * DAY_MS;
/** The series hash outlives the last month string that numbers its series by. */
const DICT_EXTRA_MS = 31 * DAY_MS;
/** The series name of the book's best-seller rank (keywords are named by themselves). */
export const BSR_SERIES = '\u0000bsr';
const COMP_PREFIX = '\u0000comp:';
/** The series of a comp's BSR as the book's page lists it. */
export const compSeries = (asin: string) => `${COMP_PREFIX}${asin}`;
/** The comp's ASIN of a comp series, or undefined for BSR and keywords. */
export const compOfSeries = (series: string) =>
  series.startsWith(COMP_PREFIX) ? series.slice(COMP_PREFIX.length) : undefined;

/**
 * Numbers the series (once per book) and writes one day's points; idempotent. The day is rebuilt and
 * SET whole rather than patched with SETRANGE, whose greedy growth leaves a string up to twice its
 * length in memory.
 */
const WRITE_DAY = `
local dict, day = KEYS[1], KEYS[2]
local current = redis.call('GET', day) or ''
local chunks = {}
local count = math.floor(#current / ${DAY_BYTES})
for i = 1, count do chunks[i] = string.sub(current, (i - 1) * ${DAY_BYTES} + 1, i * ${DAY_BYTES}) end
local empty = string.rep('\\0', ${DAY_BYTES})
for i = 3, #ARGV, 2 do
  local index = redis.call('HGET', dict, ARGV[i])
  if not index then
    index = redis.call('HLEN', dict)
    redis.call('HSET', dict, ARGV[i], index)
  end
  index = tonumber(index) + 1
  for j = count + 1, index do chunks[j] = empty end
  if index > count then count = index end
  local chunk = chunks[index]
  local runs = ARGV[i + 1]
  -- runs: repeated [hour (1 byte)][point (4 bytes)]
  for j = 1, #runs, 5 do
    local at = string.byte(runs, j) * ${POINT_BYTES}
    chunk = string.sub(chunk, 1, at) .. string.sub(runs, j + 1, j + 4) .. string.sub(chunk, at + ${POINT_BYTES} + 1)
  end
  chunks[index] = chunk
end
redis.call('SET', day, table.concat(chunks), 'PX', ARGV[1])
redis.call('PEXPIRE', dict, ARGV[2])
return 1
`;

export interface HistoryBook {
  workspace: string;
  asin: string;
  marketplace: string;
}

export interface HistoryPoints {
  /** `BSR_SERIES` or a keyword. */
  series: string;
  points: readonly RankPoint[];
}

/** A series over a range: hourly points where kept, else one summary a day. */
export interface SeriesHistory {
  /** Hourly points, and for a summarised day its median at noon; oldest first. */
  points: RankPoint[];
  /** The summarised days, oldest first. */
  days: DaySummary[];
}

export class RedisHistoryStore {
  readonly retentionMs: number;
  /** How long hourly points stay before they become daily summaries (at most the retention). */
  readonly hourlyMs: number;
  private readonly redis: Redis | Cluster;
  private readonly prefix: KeyPrefix;
  private readonly compacted = new Map<string, number>();

  constructor(options: {
    redis: Redis | Cluster;
    prefix: KeyPrefix;
    retentionMs?: number;
    hourlyMs?: number;
  }) {
    this.redis = options.redis;
    this.prefix = options.prefix;
    this.retentionMs = options.retentionMs ?? DEFAULT_HISTORY_RETENTION_MS;
    this.hourlyMs = Math.min(this.retentionMs, options.hourlyMs ?? DEFAULT_HOURLY_MS);
  }

  private get tiers(): Tiers {
    return { hourlyMs: this.hourlyMs, retentionMs: this.retentionMs };
  }

  private bookKey(book: HistoryBook): string {
    return historyBookKey(this.prefix, book.workspace, book.asin, book.marketplace);
  }

  private dayKey(book: HistoryBook, dayMs: number): string {
    return historyDayKey(this.bookKey(book), dayMs);
  }

  /**
   * Summarises the book's days past the hourly window (a few batches a call; see `summary.ts`);
   * returns how many days it summarised. The poll job calls it after recording.
   */
  compact(book: HistoryBook, nowMs: number): Promise<number> {
    return compactBook(this.redis, this.bookKey(book), nowMs, this.tiers, this.compacted);
  }

  /** Keeps sales days (`sales.ts`) for the retention. */
  recordSales(workspace: string, days: readonly SalesDay[], nowMs: number): Promise<void> {
    return recordSalesDays(this.redis, this.prefix, workspace, days, nowMs, this.retentionMs);
  }

  /** The book's sales days from `from` to `to` (`YYYY-MM-DD`). */
  readSales(book: HistoryBook, from: string, to: string): Promise<SalesDay[]> {
    return readSalesDays(this.redis, this.prefix, book, from, to);
  }

  /** Keeps the points (hours not on the hour are floored; points past the hourly window are skipped). */
  async record(book: HistoryBook, series: readonly HistoryPoints[], nowMs: number): Promise<void> {
    const byDay = new Map<number, Map<string, Buffer[]>>();
    for (const { series: name, points } of series) {
      for (const point of points) {
        const hour = Math.floor(point.at / HOUR_MS) * HOUR_MS;
        const day = Math.floor(hour / DAY_MS) * DAY_MS;
        // A day past the window may be summarised already: a point written into it now would be lost.
        if (day + DAY_MS + this.hourlyMs <= nowMs) continue;
        const run = Buffer.alloc(5);
        run.writeUInt8((hour - day) / HOUR_MS, 0);
        run.writeUInt32BE(point.rank === null ? UNRANKED : Math.min(point.rank, UNRANKED - 1), 1);
        let names = byDay.get(day);
        if (names === undefined) {
          names = new Map();
          byDay.set(day, names);
        }
        const runs = names.get(name);
        if (runs === undefined) names.set(name, [run]);
        else runs.push(run);
      }
    }
    const dict = historySeriesKey(this.bookKey(book));
    for (const [day, names] of byDay) {
      // Relative TTLs from the poll's clock (Redis' own clock may differ from an injected one).
      const args: (string | Buffer | number)[] = [
        day + DAY_MS + this.retentionMs - nowMs,
        this.retentionMs + DICT_EXTRA_MS,
      ];
      for (const [name, runs] of names) args.push(name, Buffer.concat(runs));
      await this.redis.eval(WRITE_DAY, 2, dict, this.dayKey(book, day), ...args);
    }
  }

  /** Every kept point of the book from `fromMs` to `toMs` by series: hourly, or a summarised day's median. */
  async read(book: HistoryBook, fromMs: number, toMs: number): Promise<Map<string, RankPoint[]>> {
    const tiered = await this.readTiered(book, fromMs, toMs);
    return new Map([...tiered].map(([name, series]) => [name, series.points]));
  }

  /** Every kept point and summary of the book from `fromMs` to `toMs` (whole days), by series. */
  async readTiered(book: HistoryBook, fromMs: number, toMs: number): Promise<Map<string, SeriesHistory>> {
    const bookKey = this.bookKey(book);
    const names = await this.redis.hgetall(historySeriesKey(bookKey));
    const byIndex = new Map(Object.entries(names).map(([name, index]) => [Number(index), name]));
    const out = new Map<string, SeriesHistory>();
    const seriesOf = (name: string) => {
      let series = out.get(name);
      if (series === undefined) {
        series = { points: [], days: [] };
        out.set(name, series);
      }
      return series;
    };
    const days: number[] = [];
    for (let day = Math.floor(fromMs / DAY_MS) * DAY_MS; day <= toMs; day += DAY_MS) days.push(day);
    const hourly = new Map<number, Buffer>();
    for (let i = 0; i < days.length; i += MGET_BATCH) {
      const batch = days.slice(i, i + MGET_BATCH);
      const strings = await this.redis.mgetBuffer(...batch.map((day) => historyDayKey(bookKey, day)));
      batch.forEach((day, j) => {
        const bytes = strings[j];
        if (bytes !== null && bytes !== undefined) hourly.set(day, bytes);
      });
    }
    const summaries = await readSummaries(
      this.redis,
      bookKey,
      days.filter((day) => !hourly.has(day)),
    );
    const summaryAt = new Map<number, Map<string, DaySummary>>();
    for (const [index, list] of summaries) {
      const name = byIndex.get(index);
      if (name === undefined) continue;
      for (const summary of list) {
        const forDay = summaryAt.get(summary.day) ?? new Map<string, DaySummary>();
        forDay.set(name, summary);
        summaryAt.set(summary.day, forDay);
      }
    }
    for (const day of days) {
      const bytes = hourly.get(day);
      if (bytes === undefined) {
        const noon = day + 12 * HOUR_MS;
        for (const [name, summary] of summaryAt.get(day) ?? []) {
          const series = seriesOf(name);
          series.days.push(summary);
          if (noon >= fromMs && noon <= toMs) series.points.push({ at: noon, rank: summary.median });
        }
        continue;
      }
      for (const [index, name] of byIndex) {
        const base = index * DAY_BYTES;
        for (let h = 0; h < 24 && base + (h + 1) * POINT_BYTES <= bytes.length; h++) {
          const value = bytes.readUInt32BE(base + h * POINT_BYTES);
          const at = day + h * HOUR_MS;
          if (value === NOT_SEEN || at < fromMs || at > toMs) continue;
          seriesOf(name).points.push({ at, rank: value === UNRANKED ? null : value });
        }
      }
    }
    return out;
  }
}

const MGET_BATCH = 100;

export type { DaySummary };
