import type { Cluster, Redis } from 'ioredis';
import type { Alert } from '../model/alert.ts';
import type { KeyPrefix } from '../util/redis-keys.ts';
import { DAY_MS } from '../util/time-units.ts';
import { pauseEpisodeKey } from './keys.ts';
import type { PauseReason } from './request-budget.ts';
import { LuaScript } from './scripts.ts';

/**
 * One pause episode of a workspace: from the first pause the API caused (a 429, a 401) until an
 * answer comes back ok. Pauses that follow each other (a 401 re-checked every 15 minutes, 429
 * after 429) are one episode, so it is alerted once and its recovery announced once.
 */
export interface PauseEpisode {
  /** When the episode began (clock ms): names it in fingerprints. */
  sinceMs: number;
  /** The reason of the latest pause in the episode. */
  reason: PauseReason;
  /** The furthest pause end seen in the episode (clock ms); `lift` sets it to the time of a resume. */
  untilMs: number;
  /** Rules that alerted about this episode (they, and only they, announce its recovery). */
  alertedRuleIds: string[];
  /** Their alerts marked but not yet known to be enqueued (a process died in between). */
  pendingAlerts: Alert[];
}

/** Kept this long after the furthest pause end, so an abandoned episode cleans itself up. */
const EPISODE_KEY_SLACK_MS = DAY_MS;

/**
 * KEYS: 1 episode hash. ARGV: 1 pause end, 2 reason, 3 now, 4 slack ms.
 * Keeps `since` of an open episode and the furthest end; replies with the hash's fields.
 */
const recordScript = new LuaScript(`
if redis.call('HEXISTS', KEYS[1], 'since') == 0 then
  redis.call('HSET', KEYS[1], 'since', ARGV[3])
end
local untilMs = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')
if tonumber(ARGV[1]) > untilMs then
  untilMs = tonumber(ARGV[1])
  redis.call('HSET', KEYS[1], 'until', ARGV[1])
end
redis.call('HSET', KEYS[1], 'reason', ARGV[2])
redis.call('PEXPIRE', KEYS[1], math.max(1, untilMs - tonumber(ARGV[3])) + tonumber(ARGV[4]))
return redis.call('HGETALL', KEYS[1])
`);

/** KEYS: 1 episode hash. ARGV: 1 since. Deletes the episode only if it is still the one named. */
const endScript = new LuaScript(`
if redis.call('HGET', KEYS[1], 'since') == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`);

/** KEYS: 1 episode hash. ARGV: 1 since, 2 field to set, 3 value. Only on the episode named. */
const markScript = new LuaScript(`
if redis.call('HGET', KEYS[1], 'since') == ARGV[1] then
  redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
  return 1
end
return 0
`);

const ALERTED_FIELD = 'alerted:';
/** The value of a rule's alerted field once its alert is enqueued; before, the alert's JSON. */
const ENQUEUED = '1';

/**
 * Pause episodes in Redis, one hash per workspace next to the budget's pause (same prefix, so
 * the same Cluster slot). Separate from the pause itself: the pause expires or is lifted by
 * `resume`, while the episode lasts until an answer comes back ok.
 */
export class PauseEpisodes {
  constructor(
    private readonly redis: Redis | Cluster,
    private readonly prefix: KeyPrefix,
  ) {}

  private key(workspace: string): string {
    return pauseEpisodeKey(this.prefix, workspace);
  }

  /** Opens an episode, or extends the open one, with a pause until `untilMs`. */
  async record(
    workspace: string,
    reason: PauseReason,
    untilMs: number,
    nowMs: number,
  ): Promise<PauseEpisode> {
    const reply = await recordScript.run(
      this.redis,
      [this.key(workspace)],
      [Math.ceil(untilMs), reason, Math.floor(nowMs), EPISODE_KEY_SLACK_MS],
    );
    const episode = episodeFrom(Array.isArray(reply) ? pairs(reply as unknown[]) : {});
    if (episode === undefined) throw new TypeError('pause episode script: unexpected reply');
    return episode;
  }

  async current(workspace: string): Promise<PauseEpisode | undefined> {
    return episodeFrom(await this.redis.hgetall(this.key(workspace)));
  }

  /**
   * Marks the rules of `alerts` as alerted, keeping each alert with its mark until `markEnqueued`:
   * marked before the enqueue, an alert is never sent while the episode says its rule did not
   * alert (its recovery would never be announced), and one a crash kept from the queue stays here.
   */
  async markAlerted(workspace: string, sinceMs: number, alerts: readonly Alert[]): Promise<void> {
    for (const alert of alerts) {
      const field = `${ALERTED_FIELD}${alert.ruleId}`;
      await markScript.run(this.redis, [this.key(workspace)], [sinceMs, field, JSON.stringify(alert)]);
    }
  }

  async markEnqueued(workspace: string, sinceMs: number, ruleIds: readonly string[]): Promise<void> {
    for (const ruleId of ruleIds) {
      await markScript.run(
        this.redis,
        [this.key(workspace)],
        [sinceMs, `${ALERTED_FIELD}${ruleId}`, ENQUEUED],
      );
    }
  }

  /** After `resume`: the pause ends now, so the next ok answer closes the episode. */
  async lift(workspace: string, nowMs: number): Promise<PauseEpisode | undefined> {
    const episode = await this.current(workspace);
    if (episode === undefined) return undefined;
    await markScript.run(this.redis, [this.key(workspace)], [episode.sinceMs, 'until', Math.floor(nowMs)]);
    return { ...episode, untilMs: Math.floor(nowMs) };
  }

  /** Closes the episode named by `sinceMs` (a later one is left alone). */
  async end(workspace: string, sinceMs: number): Promise<void> {
    await endScript.run(this.redis, [this.key(workspace)], [sinceMs]);
  }
}

function pairs(flat: readonly unknown[]): Record<string, string> {
  const record: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) record[String(flat[i])] = String(flat[i + 1]);
  return record;
}

const REASONS: readonly string[] = ['rate_limited', 'quota_exceeded', 'unauthorized'];

function episodeFrom(hash: Record<string, string>): PauseEpisode | undefined {
  const sinceMs = Number(hash.since);
  const untilMs = Number(hash.until);
  const reason = hash.reason;
  if (!Number.isFinite(sinceMs) || !Number.isFinite(untilMs) || reason === undefined) return undefined;
  if (!REASONS.includes(reason)) return undefined;
  const alerted = Object.entries(hash).filter(([field]) => field.startsWith(ALERTED_FIELD));
  const alertedRuleIds = alerted.map(([field]) => field.slice(ALERTED_FIELD.length));
  const pendingAlerts = alerted.flatMap(([, value]) => (value === ENQUEUED ? [] : pendingAlert(value)));
  return { sinceMs, reason: reason as PauseReason, untilMs, alertedRuleIds, pendingAlerts };
}

/** A pending alert as marked; an unreadable one (written by another version) is dropped. */
function pendingAlert(value: string): Alert[] {
  try {
    const alert = JSON.parse(value) as Alert;
    return typeof alert?.fingerprint === 'string' ? [alert] : [];
  } catch {
    return [];
  }
}
