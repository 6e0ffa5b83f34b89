/**
 * Hourly rank and BSR points kept for charts, compactly: one Redis string per book, marketplace and
 * UTC day, of fixed-width 4-byte points (24 per series: a series' day is 96 bytes at offset
 * `index × 96`), and one hash per book numbering its series (`bsr` and each keyword). A point is a
 * big-endian uint32: 0 = not seen, 0xFFFFFFFF = unranked (null), else the rank. Each day key expires
 * `retention` after its day ends, so the store holds at most
 *
 *   4 bytes × 24 hours × retention days × series seen in that time
 *
 * per book and marketplace (plus Redis' per-key overhead and the series names once), e.g. 873 KB for
 * 90 days of 100 keywords and BSR. Writes are idempotent (a re-judged hour writes the same bytes).
 *
 * Keys (the prefix's hash tag keeps a book's keys in one slot for the script):
 *   <prefix>:hist:<ws>:<asin>:<mp>:series        hash    name → index   TTL = retention, refreshed
 *   <prefix>:hist:<ws>:<asin>:<mp>:<YYYYMMDD>    string  points         TTL = day end + retention
 */

import type { Cluster, Redis } from 'ioredis';
import type { RankPoint } from '../model/observation.ts';
import { historyBookKey, historyDayKey, historySeriesKey } from './keys.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const POINT_BYTES = 4;
const DAY_BYTES = 24 * POINT_BYTES;
const NOT_SEEN = 0;
const UNRANKED = 0xffffffff;
export const DEFAULT_HISTORY_RETENTION_MS = 90 * DAY_MS;
/** The series name of the book's best-seller rank (keywords are named by themselves). */
export const BSR_SERIES = '\u0000bsr';

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

export class RedisHistoryStore {
  readonly retentionMs: number;
  private readonly redis: Redis | Cluster;
  private readonly prefix: string;

  constructor(options: { redis: Redis | Cluster; prefix: string; retentionMs?: number }) {
    this.redis = options.redis;
    this.prefix = options.prefix;
    this.retentionMs = options.retentionMs ?? DEFAULT_HISTORY_RETENTION_MS;
  }

  private bookKey(book: HistoryBook): string {
    return historyBookKey(this.prefix, book.workspace, book.asin, book.marketplace);
  }

  private dayKey(book: HistoryBook, dayMs: number): string {
    return historyDayKey(this.bookKey(book), dayMs);
  }

  /** Keeps the points (hours not on the hour are floored; points older than the retention are skipped). */
  async record(book: HistoryBook, series: readonly HistoryPoints[], nowMs: number): Promise<void> {
    const byDay = new Map<number, Map<string, Buffer[]>>();
    for (const { series: name, points } of series) {
      for (const point of points) {
        const hour = Math.floor(point.at / HOUR_MS) * HOUR_MS;
        const day = Math.floor(hour / DAY_MS) * DAY_MS;
        if (day + DAY_MS + this.retentionMs <= nowMs) continue;
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
      const args: (string | Buffer | number)[] = [day + DAY_MS + this.retentionMs - nowMs, this.retentionMs];
      for (const [name, runs] of names) args.push(name, Buffer.concat(runs));
      await this.redis.eval(WRITE_DAY, 2, dict, this.dayKey(book, day), ...args);
    }
  }

  /** Every kept point of the book from `fromMs` to `toMs` (whole days), by series, oldest first. */
  async read(book: HistoryBook, fromMs: number, toMs: number): Promise<Map<string, RankPoint[]>> {
    const names = await this.redis.hgetall(historySeriesKey(this.bookKey(book)));
    const out = new Map<string, RankPoint[]>();
    const first = Math.floor(fromMs / DAY_MS) * DAY_MS;
    for (let day = first; day <= toMs; day += DAY_MS) {
      const bytes = await this.redis.getBuffer(this.dayKey(book, day));
      if (bytes === null) continue;
      for (const [name, indexText] of Object.entries(names)) {
        const base = Number(indexText) * DAY_BYTES;
        for (let h = 0; h < 24 && base + (h + 1) * POINT_BYTES <= bytes.length; h++) {
          const value = bytes.readUInt32BE(base + h * POINT_BYTES);
          const at = day + h * HOUR_MS;
          if (value === NOT_SEEN || at < fromMs || at > toMs) continue;
          const points = out.get(name) ?? [];
          points.push({ at, rank: value === UNRANKED ? null : value });
          out.set(name, points);
        }
      }
    }
    return out;
  }
}
