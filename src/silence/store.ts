import { randomBytes } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import type { Alert } from '../model/alert.ts';
import { DAY_MS } from '../util/time-units.ts';
import { silenceKeys } from './keys.ts';
import { checkSilence, type Silence, type SilenceMatch, silenceState } from './silence.ts';

/** How long silences that ended, and records of silenced alerts, are kept (like the dedup log). */
export const SILENCE_RETENTION_MS = 30 * DAY_MS;

export type NewSilence = Omit<Silence, 'id' | 'createdAt' | 'expiredAt'>;

/** One alert a silence kept from one channel: recorded, counted, not sent. */
export interface SilencedRecord {
  alert: Alert;
  channelId: string;
  silenceId: string;
  reason: string;
  atMs: number;
}

// KEYS: log (zset), details (hash), hits (hash). ARGV: now, cutoff, then member, record JSON, silence id
// per alert. Each (workspace, channel, fingerprint) is recorded once, so a re-run of a flush after a
// crash counts nothing twice; records older than the retention go in the same call.
const RECORD = `
local added = 0
for i = 3, #ARGV, 3 do
  if redis.call('ZADD', KEYS[1], 'NX', ARGV[1], ARGV[i]) == 1 then
    redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
    redis.call('HINCRBY', KEYS[3], ARGV[i + 2], 1)
    added = added + 1
  end
end
local old = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[2], 'LIMIT', 0, 1000)
if #old > 0 then
  redis.call('ZREM', KEYS[1], unpack(old))
  redis.call('HDEL', KEYS[2], unpack(old))
end
return added
`;

/**
 * Silences in Redis, shared by every worker and the CLI (and later the console): add, list, expire,
 * and the record of what they silenced. Every key derives from the prefix, so one hash tag keeps
 * them in one Cluster slot. Times come from the caller (the runtime's clock), never from here.
 */
export class SilenceStore {
  private readonly keys: { silences: string; log: string; details: string; hits: string };

  constructor(
    private readonly redis: Redis | Cluster,
    prefix: string,
  ) {
    this.keys = silenceKeys(prefix);
  }

  /** Checks and stores a silence; throws `SilenceInputError` for bad input. */
  async add(input: NewSilence, nowMs: number): Promise<Silence> {
    checkSilence(input);
    const silence: Silence = { ...input, id: randomBytes(6).toString('hex'), createdAt: nowMs };
    await this.redis.hset(this.keys.silences, silence.id, JSON.stringify(silence));
    await this.prune(nowMs);
    return silence;
  }

  async get(id: string): Promise<Silence | undefined> {
    const raw = await this.redis.hget(this.keys.silences, id);
    return raw === null ? undefined : (JSON.parse(raw) as Silence);
  }

  /** Every stored silence (pending, active, and ended within the retention), soonest end first. */
  async all(): Promise<Silence[]> {
    const raw = await this.redis.hvals(this.keys.silences);
    return raw.map((value) => JSON.parse(value) as Silence).sort((a, b) => a.endsAt - b.endsAt);
  }

  /** The silences in force at `nowMs`: one read, for one flush. */
  async active(nowMs: number): Promise<Silence[]> {
    return (await this.all()).filter((s) => silenceState(s, nowMs) === 'active');
  }

  /** Ends a silence now (its end moves to `nowMs`); undefined when no such silence exists. */
  async expire(id: string, nowMs: number): Promise<Silence | undefined> {
    const silence = await this.get(id);
    if (silence === undefined) return undefined;
    if (silence.endsAt <= nowMs) return silence;
    const ended: Silence = { ...silence, endsAt: Math.max(nowMs, silence.startsAt), expiredAt: nowMs };
    await this.redis.hset(this.keys.silences, id, JSON.stringify(ended));
    return ended;
  }

  /** How many alerts (per channel) each silence kept back, by silence id. */
  async hits(): Promise<Map<string, number>> {
    const raw = await this.redis.hgetall(this.keys.hits);
    return new Map(Object.entries(raw).map(([id, count]) => [id, Number(count)]));
  }

  /** Records alerts kept from `channelId`; returns how many were new (a re-run adds none). */
  async record(
    silenced: readonly { alert: Alert; match: SilenceMatch }[],
    channelId: string,
    nowMs: number,
  ): Promise<number> {
    if (silenced.length === 0) return 0;
    const args: string[] = [];
    for (const { alert, match } of silenced) {
      const record: SilencedRecord = {
        alert,
        channelId,
        silenceId: match.id,
        reason: match.reason,
        atMs: nowMs,
      };
      args.push(memberOf(alert, channelId), JSON.stringify(record), match.id);
    }
    const keys = [this.keys.log, this.keys.details, this.keys.hits];
    return Number(await this.redis.eval(RECORD, 3, ...keys, nowMs, nowMs - SILENCE_RETENTION_MS, ...args));
  }

  /**
   * Alerts silenced from `fromMs` (inclusive) to `toMs` (exclusive), optionally of one workspace,
   * newest first; an alert kept from several channels counts once.
   */
  async silencedBetween(fromMs: number, toMs: number, workspace?: string): Promise<SilencedRecord[]> {
    const members = await this.redis.zrevrangebyscore(this.keys.log, `(${toMs}`, fromMs);
    const wanted = workspace === undefined ? members : members.filter((m) => m.startsWith(`${workspace}|`));
    if (wanted.length === 0) return [];
    const raw = await this.redis.hmget(this.keys.details, ...wanted);
    const seen = new Set<string>();
    const records: SilencedRecord[] = [];
    for (const value of raw) {
      if (value === null) continue;
      const record = JSON.parse(value) as SilencedRecord;
      if (seen.has(record.alert.fingerprint)) continue;
      seen.add(record.alert.fingerprint);
      records.push(record);
    }
    return records;
  }

  /** Drops silences that ended longer ago than the retention. */
  private async prune(nowMs: number): Promise<void> {
    const old = (await this.all()).filter((s) => s.endsAt < nowMs - SILENCE_RETENTION_MS).map((s) => s.id);
    if (old.length > 0) {
      await this.redis.hdel(this.keys.silences, ...old);
      await this.redis.hdel(this.keys.hits, ...old);
    }
  }
}

/** Workspace ids are `[a-z0-9-]` and channel ids too, so `|` cannot occur inside them. */
function memberOf(alert: Alert, channelId: string): string {
  return `${alert.workspace}|${channelId}|${alert.fingerprint}`;
}
