/**
 * Redis forgetting shelfwatch's state (FLUSHALL, a restart without persistence, a fail-over to an
 * empty replica): detected, said, and survived without swallowing what is new.
 *
 * - Detected: a marker key (the epoch) is written once; a process that knew it and finds it gone or
 *   replaced knows the state was lost. Checked on a timer, at each reconcile, and by any poll that
 *   finds no baseline for a target this process remembers polling.
 * - Said: `onLoss` (the app logs an error, counts a metric and raises a `state_lost` alert); the
 *   loss is recorded in Redis for `status`.
 * - Survived: each process keeps in memory, per target, when its last good poll started (or the
 *   time of a baseline it read). On a loss every live process publishes that memory to Redis (the
 *   latest time per target wins); a poll that finds no baseline judges what its answer proves was
 *   published after that time as new (`recoveredBaseline`), instead of taking all of it as a silent
 *   new baseline.
 */
import { randomBytes } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { DeferredError } from '../model/deferred.ts';
import type { KeywordsObservation, Observation, SalesObservation, TargetRef } from '../model/observation.ts';
import type { Clock } from '../util/clock.ts';
import { DAY_MS } from '../util/time-units.ts';
import { recoveredCutoffsKey, stateEpochKey, stateLostKey } from './keys.ts';

/**
 * What a process keeps of a target's last good poll to judge against after a loss: the review ids a
 * campaign listed (ids only: bodies can be long), or the whole observation of a sales or keywords
 * target (a few dozen figures). Book targets keep nothing: their rules judge a rolling baseline and
 * conditions that are state, not observation.
 */
export type Remembered =
  | { atMs: number; reviewIds: string[] }
  | { atMs: number; observation: SalesObservation | KeywordsObservation };

function rememberedOf(observation: Observation, atMs: number): Remembered | undefined {
  if (observation.kind === 'reviews') return { atMs, reviewIds: observation.reviews.map((r) => r.reviewId) };
  if (observation.kind === 'sales' || observation.kind === 'keywords') return { atMs, observation };
  return undefined;
}

/** Per target, the latest good observation this process polled or read (its `Remembered` form). */
export class PollMemory {
  private readonly last = new Map<string, Map<string, Remembered>>();

  remember(ref: TargetRef, observation: Observation, atMs: number): void {
    const entry = rememberedOf(observation, atMs);
    if (entry === undefined) return;
    let targets = this.last.get(ref.workspace);
    if (targets === undefined) {
      targets = new Map();
      this.last.set(ref.workspace, targets);
    }
    if ((targets.get(ref.id)?.atMs ?? Number.NEGATIVE_INFINITY) <= atMs) targets.set(ref.id, entry);
  }

  get(ref: TargetRef): Remembered | undefined {
    return this.last.get(ref.workspace)?.get(ref.id);
  }

  workspaces(): IterableIterator<[string, ReadonlyMap<string, Remembered>]> {
    return this.last.entries();
  }
}

export interface StateLossInfo {
  /** This process's clock when it noticed. */
  detectedAtMs: number;
  /** The marker before (known to this process) and the one now in Redis. */
  previousEpoch: string;
  epoch: string;
}

/** What a poll asks when it finds no baseline (PollDeps.stateLoss). */
export interface StateLossGuard {
  /**
   * The latest good poll of this target any live process remembers; undefined when none does (a
   * real first poll). Throws a DeferredError for a few seconds after a loss while other processes
   * may still be publishing their memory.
   */
  rememberedFor(ref: TargetRef): Promise<Remembered | undefined>;
}

// KEYS: epoch. ARGV: candidate. The marker in Redis, set to the candidate when there is none.
const CLAIM_EPOCH = `
local current = redis.call('GET', KEYS[1])
if current then return current end
redis.call('SET', KEYS[1], ARGV[1])
return ARGV[1]
`;

// KEYS: hash. ARGV: ttl, then (field, time, value) triples. Keeps the latest value of each field
// (its time in the companion field '<field>@').
const PUBLISH_LATEST = `
for i = 2, #ARGV, 3 do
  local current = tonumber(redis.call('HGET', KEYS[1], ARGV[i] .. '@') or '-1')
  if tonumber(ARGV[i + 1]) > current then
    redis.call('HSET', KEYS[1], ARGV[i] .. '@', ARGV[i + 1], ARGV[i], ARGV[i + 2])
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`;

/** How long after a loss a poll with no memory of its target waits for the other processes'. */
export const SHARE_WAIT_MS = 8_000;
/** The published memory and the loss record are kept this long (figures and ids only). */
const RECORD_TTL_MS = 7 * DAY_MS;

export interface StateLossOptions {
  redis: Redis | Cluster;
  prefix: string;
  clock: Clock;
  memory: PollMemory;
  /** Said once per loss in this process (log, metric, alert). */
  onLoss(info: StateLossInfo): Promise<void> | void;
}

export class StateLoss implements StateLossGuard {
  private known: string | undefined;
  private checking: Promise<StateLossInfo | undefined> | undefined;
  /** The last loss this process noticed. */
  last: StateLossInfo | undefined;

  constructor(private readonly options: StateLossOptions) {}

  get memory(): PollMemory {
    return this.options.memory;
  }

  /** Reads (or first writes) the marker; a loss is published and said before this resolves. */
  check(): Promise<StateLossInfo | undefined> {
    this.checking ??= this.checkOnce().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  private async checkOnce(): Promise<StateLossInfo | undefined> {
    const { redis, prefix, clock } = this.options;
    const candidate = `${clock.now()}-${randomBytes(6).toString('hex')}`;
    const epoch = String(await redis.eval(CLAIM_EPOCH, 1, stateEpochKey(prefix), candidate));
    const previous = this.known;
    this.known = epoch;
    if (previous === undefined || previous === epoch) return undefined;
    const info: StateLossInfo = { detectedAtMs: clock.now(), previousEpoch: previous, epoch };
    this.last = info;
    await this.publishMemory();
    // The first process to notice records when; `status` shows it until the next loss.
    await redis.set(
      stateLostKey(prefix),
      JSON.stringify({ atMs: info.detectedAtMs, epoch }),
      'PX',
      RECORD_TTL_MS,
      'NX',
    );
    await this.options.onLoss(info);
    return info;
  }

  private async publishMemory(): Promise<void> {
    const { redis, prefix } = this.options;
    for (const [workspace, targets] of this.options.memory.workspaces()) {
      const triples = [...targets].flatMap(([id, entry]) => [id, String(entry.atMs), JSON.stringify(entry)]);
      if (triples.length === 0) continue;
      await redis.eval(PUBLISH_LATEST, 1, recoveredCutoffsKey(prefix, workspace), RECORD_TTL_MS, ...triples);
    }
  }

  async rememberedFor(ref: TargetRef): Promise<Remembered | undefined> {
    const { redis, prefix, clock } = this.options;
    const own = this.options.memory.get(ref);
    // A baseline this process remembers is gone: say so now, not at the next timer.
    if (own !== undefined) await this.check();
    const raw = await redis.hget(recoveredCutoffsKey(prefix, ref.workspace), ref.id);
    const shared = raw === null ? undefined : parseRemembered(raw);
    const latest = [own, shared]
      .filter((r): r is Remembered => r !== undefined)
      .sort((a, b) => b.atMs - a.atMs)[0];
    if (latest !== undefined) return latest;
    const waitUntil = (this.last?.detectedAtMs ?? Number.NEGATIVE_INFINITY) + SHARE_WAIT_MS;
    if (clock.now() < waitUntil) {
      throw new DeferredError(
        'poll',
        waitUntil,
        'Redis lost the state; waiting for the other processes to say what they last saw of this target',
      );
    }
    return undefined;
  }
}

/** What another process published; ours wrote it, but Redis is a boundary: anything else is none. */
function parseRemembered(raw: string): Remembered | undefined {
  try {
    const value = JSON.parse(raw) as Partial<{ atMs: unknown; reviewIds: unknown; observation: unknown }>;
    if (typeof value.atMs !== 'number') return undefined;
    if (Array.isArray(value.reviewIds) && value.reviewIds.every((id) => typeof id === 'string'))
      return { atMs: value.atMs, reviewIds: value.reviewIds as string[] };
    const observation = value.observation as Observation | undefined;
    if (observation?.kind === 'sales' || observation?.kind === 'keywords')
      return { atMs: value.atMs, observation };
  } catch {
    // unreadable: as if nothing was remembered
  }
  return undefined;
}

/** The loss `status` shows: when it was noticed, or null when none is recorded. */
export async function lastStateLoss(redis: Redis | Cluster, prefix: string): Promise<number | null> {
  const raw = await redis.get(stateLostKey(prefix));
  if (raw === null) return null;
  try {
    const atMs = (JSON.parse(raw) as { atMs?: unknown }).atMs;
    return typeof atMs === 'number' ? atMs : null;
  } catch {
    return null;
  }
}

/**
 * The baseline a poll with no stored one judges against after a loss. Reviews: the answer without
 * the reviews no live process had seen (those are new). Sales and keywords: the remembered
 * observation itself (revised days and moved ranks are judged as usual). Anything else, or a kind
 * that does not match: none (a new baseline), as documented in docs/reliability.md.
 */
export function recoveredBaseline(observation: Observation, remembered: Remembered): Observation | undefined {
  if ('reviewIds' in remembered) {
    if (observation.kind !== 'reviews') return undefined;
    const seen = new Set(remembered.reviewIds);
    return { ...observation, reviews: observation.reviews.filter((r) => seen.has(r.reviewId)) };
  }
  return remembered.observation.kind === observation.kind ? remembered.observation : undefined;
}
