/**
 * The alert log: one compact entry per alert, written where alerts are handed to delivery, with
 * each channel's outcome (queued, delivered, silenced, dead-lettered) updated in place by the
 * delivery worker. Shared by every worker through Redis; bounded by count and age, both trimmed in
 * the same script that writes, so no janitor is needed. The console reads it; nothing else does.
 */

import type { Cluster, Redis } from 'ioredis';
import type { Alert, AlertKind, Severity } from '../model/alert.ts';
import { alertLogAsinKey, alertLogKeys } from './keys.ts';

export type DeliveryOutcome = 'queued' | 'delivered' | 'silenced' | 'dead-lettered';

export const DELIVERY_OUTCOMES: readonly DeliveryOutcome[] = [
  'queued',
  'delivered',
  'silenced',
  'dead-lettered',
];

/** What the log keeps of an alert: enough to list, filter and draw it, not its facts or series. */
export interface AlertLogEntry {
  fingerprint: string;
  workspace: string;
  ruleId: string;
  kind: AlertKind;
  severity: Severity;
  status: Alert['status'];
  title: string;
  asin?: string;
  marketplace?: string;
  /** The book's title where the alert knew it (its `bookTitle` fact): pages name the book by it. */
  bookTitle?: string;
  keyword?: string;
  observedAt: number;
  /** A rank alert's baseline (what it compared against) and observed rank: charts draw the drop. */
  before?: number;
  after?: number;
  /** Outcome per channel id. */
  deliveries: Record<string, DeliveryOutcome>;
  /** Silences set from this alert's mute links: who and why (`silence/mute-apply.ts`). */
  muted?: MutedNote[];
}

export interface MutedNote {
  silenceId: string;
  by: string;
  reason: string;
  atMs: number;
}

export interface AlertLogLimits {
  maxEntries: number;
  retentionMs: number;
}

/** Titles are one line; a hostile 10,000-character one is cut so one entry cannot bloat the log. */
const TITLE_MAX = 300;
/** Members trimmed per write: a write never turns into a long-running script. */
const TRIM_BATCH = 500;

// KEYS: index (zset by observedAt), entries (hash), then the per-ASIN indexes the alerts name.
// ARGV: cutoff, maxEntries, ttl ms, then fingerprint, observedAt, entry JSON, ASIN key number (0:
// none) per alert. An alert already logged keeps its entry (a re-run poll adds nothing). A per-ASIN
// index is trimmed by age when written and expires with the retention; members whose entry the
// count limit removed are skipped when read.
const RECORD = `
for i = 4, #ARGV, 4 do
  if redis.call('ZADD', KEYS[1], 'NX', ARGV[i + 1], ARGV[i]) == 1 then
    redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 2])
    local k = tonumber(ARGV[i + 3])
    if k > 0 then
      redis.call('ZADD', KEYS[k], ARGV[i + 1], ARGV[i])
      redis.call('ZREMRANGEBYSCORE', KEYS[k], '-inf', '(' .. ARGV[1])
      redis.call('PEXPIRE', KEYS[k], ARGV[3])
    end
  end
end
local old = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1], 'LIMIT', 0, ${TRIM_BATCH})
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[2])
if over > 0 then
  local extra = redis.call('ZRANGE', KEYS[1], 0, math.min(over, ${TRIM_BATCH}) - 1)
  for _, m in ipairs(extra) do old[#old + 1] = m end
end
if #old > 0 then
  redis.call('ZREM', KEYS[1], unpack(old))
  redis.call('HDEL', KEYS[2], unpack(old))
end
return #old
`;

// KEYS: entries (hash). ARGV: channel, outcome, fingerprints. Entries trimmed meanwhile stay gone.
const OUTCOME = `
local n = 0
for i = 3, #ARGV do
  local raw = redis.call('HGET', KEYS[1], ARGV[i])
  if raw then
    local entry = cjson.decode(raw)
    if type(entry.deliveries) ~= 'table' then entry.deliveries = {} end
    entry.deliveries[ARGV[1]] = ARGV[2]
    redis.call('HSET', KEYS[1], ARGV[i], cjson.encode(entry))
    n = n + 1
  end
end
return n
`;

// KEYS: entries (hash). ARGV: fingerprint, note JSON. At most 20 notes an entry: a bounded entry.
const NOTE_MUTED = `
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return 0 end
local entry = cjson.decode(raw)
if type(entry.muted) ~= 'table' then entry.muted = {} end
if #entry.muted >= 20 then return 0 end
entry.muted[#entry.muted + 1] = cjson.decode(ARGV[2])
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(entry))
return 1
`;

export function alertLogEntry(alert: Alert, channels: readonly string[]): AlertLogEntry {
  const { asin, marketplace, keyword } = alert.subject;
  // Rank kinds carry before/after; other kinds' facts have no such numbers (then nothing is kept).
  const { before, after, bookTitle } = alert.facts as {
    before?: unknown;
    after?: unknown;
    bookTitle?: unknown;
  };
  return {
    fingerprint: alert.fingerprint,
    workspace: alert.workspace,
    ruleId: alert.ruleId,
    kind: alert.kind,
    severity: alert.severity,
    status: alert.status,
    title: alert.title.length > TITLE_MAX ? `${alert.title.slice(0, TITLE_MAX - 1)}…` : alert.title,
    ...(asin === undefined ? {} : { asin }),
    ...(marketplace === undefined ? {} : { marketplace }),
    ...(typeof bookTitle === 'string' ? { bookTitle: bookTitle.slice(0, TITLE_MAX) } : {}),
    ...(keyword === undefined ? {} : { keyword }),
    observedAt: alert.observedAt,
    ...(typeof before === 'number' ? { before } : {}),
    ...(typeof after === 'number' ? { after } : {}),
    deliveries: Object.fromEntries(channels.map((c) => [c, 'queued' as const])),
  };
}

/** Where the delivery worker reports outcomes (absent in tests that do not care). */
export interface AlertOutcomeLog {
  outcome(fingerprints: readonly string[], channelId: string, outcome: DeliveryOutcome): Promise<void>;
}

export class AlertLog implements AlertOutcomeLog {
  private readonly keys: { index: string; entries: string };

  constructor(
    private readonly redis: Redis | Cluster,
    prefix: string,
    private readonly limits: AlertLogLimits,
    private readonly now: () => number,
  ) {
    this.keys = alertLogKeys(prefix);
    this.asinKey = (asin) => alertLogAsinKey(prefix, asin);
  }

  private readonly asinKey: (asin: string) => string;

  /** Logs alerts with the channels they were routed to (each queued); returns how many were trimmed. */
  async record(alerts: readonly { alert: Alert; channels: readonly string[] }[]): Promise<number> {
    if (alerts.length === 0) return 0;
    const args: (string | number)[] = [];
    const keys = [this.keys.index, this.keys.entries];
    for (const { alert, channels } of alerts) {
      const asin = alert.subject.asin;
      let keyNumber = 0;
      if (asin !== undefined) {
        const key = this.asinKey(asin);
        keyNumber = keys.indexOf(key) + 1 || keys.push(key);
      }
      args.push(
        alert.fingerprint,
        alert.observedAt,
        JSON.stringify(alertLogEntry(alert, channels)),
        keyNumber,
      );
    }
    const { retentionMs, maxEntries } = this.limits;
    const cutoff = this.now() - retentionMs;
    return Number(
      await this.redis.eval(RECORD, keys.length, ...keys, cutoff, maxEntries, retentionMs, ...args),
    );
  }

  async outcome(fingerprints: readonly string[], channelId: string, outcome: DeliveryOutcome): Promise<void> {
    if (fingerprints.length === 0) return;
    await this.redis.eval(OUTCOME, 1, this.keys.entries, channelId, outcome, ...fingerprints);
  }

  /** Notes on an alert's entry that a link in its message set a silence (nothing if trimmed). */
  async noteMuted(fingerprint: string, note: MutedNote): Promise<void> {
    await this.redis.eval(NOTE_MUTED, 1, this.keys.entries, fingerprint, JSON.stringify(note));
  }

  async get(fingerprint: string): Promise<AlertLogEntry | undefined> {
    const raw = await this.redis.hget(this.keys.entries, fingerprint);
    return raw === null ? undefined : parseEntry(raw);
  }

  /** Up to `count` (member, observedAt) pairs from `fromMs` to `toMs`, oldest first. */
  async page(
    asin: string | undefined,
    fromMs: number,
    toMs: number,
    count: number,
  ): Promise<[string, number][]> {
    const index = asin === undefined ? this.keys.index : this.asinKey(asin);
    const reply = await this.redis.zrangebyscore(index, fromMs, toMs, 'WITHSCORES', 'LIMIT', 0, count);
    const pairs: [string, number][] = [];
    for (let i = 0; i + 1 < reply.length; i += 2) pairs.push([reply[i] as string, Number(reply[i + 1])]);
    return pairs;
  }

  /** The entries of these fingerprints (undefined where trimmed meanwhile). */
  async entries(fingerprints: readonly string[]): Promise<(AlertLogEntry | undefined)[]> {
    if (fingerprints.length === 0) return [];
    const raw = await this.redis.hmget(this.keys.entries, ...fingerprints);
    return raw.map((value) => (value === null ? undefined : parseEntry(value)));
  }

  async size(): Promise<number> {
    return this.redis.zcard(this.keys.index);
  }

  /**
   * Entries newest first that pass `keep`, from `beforeMs` (exclusive) on, reading the log in
   * pages so a selective filter over a large log never loads it whole into one reply. Stops at
   * `limit` matches or after `maxScanned` entries; `nextBeforeMs` is then where the next page
   * starts (undefined when the log was read to its end). Alerts observed in the same millisecond
   * as a page's boundary may be skipped by the next page.
   */
  async query(options: {
    keep: (entry: AlertLogEntry) => boolean;
    /** Only alerts about this book: read from its own index instead of the whole log. */
    asin?: string;
    limit: number;
    beforeMs?: number;
    fromMs?: number;
    maxScanned?: number;
  }): Promise<AlertLogPage> {
    const page = 500;
    const maxScanned = options.maxScanned ?? 20_000;
    const entries: AlertLogEntry[] = [];
    let scanned = 0;
    let offset = 0;
    let lastScore: number | undefined;
    const max = options.beforeMs === undefined ? '+inf' : `(${options.beforeMs}`;
    const min = options.fromMs === undefined ? '-inf' : String(options.fromMs);
    const index = options.asin === undefined ? this.keys.index : this.asinKey(options.asin);
    while (scanned < maxScanned) {
      const want = Math.min(page, maxScanned - scanned);
      const reply = await this.redis.zrevrangebyscore(index, max, min, 'WITHSCORES', 'LIMIT', offset, want);
      const members = reply.filter((_, i) => i % 2 === 0);
      if (members.length === 0) return { entries, scanned };
      offset += members.length;
      const raw = await this.redis.hmget(this.keys.entries, ...members);
      for (const [i, value] of raw.entries()) {
        scanned += 1;
        lastScore = Number(reply[i * 2 + 1]);
        if (value === null) continue;
        const entry = parseEntry(value);
        if (!options.keep(entry)) continue;
        entries.push(entry);
        if (entries.length >= options.limit) return { entries, scanned, nextBeforeMs: lastScore };
      }
      if (members.length < want) return { entries, scanned };
    }
    return lastScore === undefined ? { entries, scanned } : { entries, scanned, nextBeforeMs: lastScore };
  }
}

/**
 * Every entry observed from `fromMs` to `toMs` (inclusive), oldest first, read a page at a time by
 * score so a large log streams: entries sharing a page boundary's millisecond are neither skipped
 * nor repeated. `asin` reads the book's own index.
 */
export async function* alertLogEntries(
  log: AlertLog,
  options: { fromMs: number; toMs: number; asin?: string },
): AsyncGenerator<AlertLogEntry> {
  let min = options.fromMs;
  let seenAtMin = new Set<string>();
  for (;;) {
    const want = seenAtMin.size + ALERT_PAGE;
    const page = await log.page(options.asin, min, options.toMs, want);
    const fresh = page.filter(([member, score]) => score !== min || !seenAtMin.has(member));
    for (const entry of await log.entries(fresh.map(([member]) => member)))
      if (entry !== undefined) yield entry;
    const last = page.at(-1);
    if (page.length < want || last === undefined) return;
    const atLast = page.filter(([, score]) => score === last[1]).map(([member]) => member);
    seenAtMin = last[1] === min ? new Set([...seenAtMin, ...atLast]) : new Set(atLast);
    min = last[1];
  }
}

const ALERT_PAGE = 500;

export interface AlertLogPage {
  entries: AlertLogEntry[];
  scanned: number;
  /** Where the next page starts (exclusive); undefined when the log was read to its end. */
  nextBeforeMs?: number;
}

function parseEntry(raw: string): AlertLogEntry {
  const entry = JSON.parse(raw) as AlertLogEntry;
  // cjson encodes an empty table as {} and a decoded-then-encoded one stays an object: always a record.
  if (typeof entry.deliveries !== 'object' || entry.deliveries === null || Array.isArray(entry.deliveries))
    entry.deliveries = {};
  return entry;
}
