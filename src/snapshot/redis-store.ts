import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import type { Observation, TargetRef } from '../model/observation.ts';
import type { KeyPrefix } from '../util/redis-keys.ts';
import { DictionaryCache, storeDictionaries } from './dictionary-cache.ts';
import { SnapshotDecodeError } from './errors.ts';
import { SnapshotKeys } from './keys.ts';
import {
  checkTtl,
  DEFAULT_HEALTH,
  DEFAULT_TTL_MS,
  decodeHealth,
  encodeHealth,
  prepareCommit,
  readStoredTarget,
} from './record.ts';
import type { SnapshotStore, StoredTarget, TargetHealth } from './types.ts';

export interface RedisSnapshotStoreOptions {
  /** Not configured with ioredis `keyPrefix`: keys are built from `prefix` here (and scripts need whole keys). */
  redis: Redis | Cluster;
  /** Key prefix; on Redis Cluster it must contain a hash tag, e.g. `{shelfwatch}`. */
  prefix: KeyPrefix;
  /** Expiry of snapshots, dictionaries, indexes and health after their last write. Default 45 days. */
  ttlMs?: number;
  /** How many decoded keyword dictionaries to keep in process (each ~60 KB for 1,000 keywords). */
  dictionaryCacheSize?: number;
}

/**
 * The compare-and-set commit, one script so it is atomic; all its keys share the prefix's slot.
 *   KEYS: snapshot, dictionary (the snapshot key again when there is none), workspace index
 *   ARGV: expectedSeq, record, ttlMs, target id, index score (expiry ms), now ms,
 *         dictionary mode ('none' | 'ref' | 'put'), dictionary bytes (for 'put')
 * Returns 1 committed, 0 lost the race, -1 the dictionary is not there ('ref'): resend with 'put'.
 * 'ref' exists so a steady-state commit ships ~4 KB of ranks rather than the ~20 KB list again.
 * The dictionary is written or refreshed before the snapshot that needs it, with the same TTL, so
 * no stored snapshot ever points at a missing dictionary.
 */
const COMMIT_LUA = `
local head = redis.call('GETRANGE', KEYS[1], 0, 19)
local current = 0
if head ~= '' then
  current = tonumber(string.match(head, '^(%d+):'))
  if current == nil then
    return redis.error_reply('ERR SHELFWATCH_SNAPSHOT_CORRUPT snapshot header unreadable')
  end
end
if current ~= tonumber(ARGV[1]) then
  return 0
end
local ttl = ARGV[3]
if ARGV[7] == 'ref' then
  if redis.call('PEXPIRE', KEYS[2], ttl) == 0 then
    return -1
  end
elseif ARGV[7] == 'put' then
  redis.call('SET', KEYS[2], ARGV[8], 'PX', ttl)
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', '(' .. ARGV[6])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[4])
redis.call('PEXPIRE', KEYS[3], ttl)
return 1
`;
const COMMIT_SHA = createHash('sha1').update(COMMIT_LUA).digest('hex');

type DictionaryMode = 'none' | 'ref' | 'put';

export class RedisSnapshotStore implements SnapshotStore {
  private readonly redis: Redis | Cluster;
  private readonly keys: SnapshotKeys;
  private readonly ttlMs: number;
  /** Keyed by the dictionary's Redis key: an entry also means "recently seen in Redis". */
  private readonly dictionaries: DictionaryCache;

  constructor(opts: RedisSnapshotStoreOptions) {
    this.redis = opts.redis;
    this.keys = new SnapshotKeys(opts.prefix);
    this.ttlMs = checkTtl(opts.ttlMs ?? DEFAULT_TTL_MS);
    this.dictionaries = new DictionaryCache(opts.dictionaryCacheSize ?? 256);
  }

  async get(target: TargetRef): Promise<StoredTarget | undefined> {
    const value = await this.redis.getBuffer(this.keys.snapshot(target));
    if (value === null) return undefined;
    return readStoredTarget(
      value,
      storeDictionaries(
        this.dictionaries,
        (id) => this.keys.dictionary(target.workspace, id),
        (key) => this.redis.getBuffer(key),
      ),
    );
  }

  async commit(
    target: TargetRef,
    next: { observation: Observation; ruleState: unknown; committedAt: number },
    expectedSeq: number,
  ): Promise<boolean> {
    const { record, dictionary } = prepareCommit(target, next, expectedSeq);
    const snapshotKey = this.keys.snapshot(target);
    const dictionaryKey =
      dictionary === null ? snapshotKey : this.keys.dictionary(target.workspace, dictionary.id);
    const run = (mode: DictionaryMode): Promise<number> => {
      // Wall-clock on purpose, not the injected Clock: index scores must match Redis's own PX
      // expiry, which runs on real time even when the engine's clock is accelerated.
      const now = Date.now();
      return this.runCommit(
        [snapshotKey, dictionaryKey, this.keys.targets(target.workspace)],
        [
          String(expectedSeq),
          record,
          String(this.ttlMs),
          target.id,
          String(now + this.ttlMs),
          String(now),
          mode,
          mode === 'put' && dictionary !== null ? dictionary.bytes : '',
        ],
      );
    };
    let mode: DictionaryMode = 'none';
    if (dictionary !== null) mode = this.dictionaries.get(dictionaryKey) === undefined ? 'put' : 'ref';
    let result = await run(mode);
    // The cached dictionary expired (or was removed) in Redis since we last saw it: send it.
    if (result === -1) result = await run('put');
    if (result === 1 && dictionary !== null)
      this.dictionaries.set({ id: dictionaryKey, keywords: dictionary.keywords });
    return result === 1;
  }

  async getHealth(target: TargetRef): Promise<TargetHealth> {
    const value = await this.redis.getBuffer(this.keys.health(target));
    return value === null ? { ...DEFAULT_HEALTH } : decodeHealth(value);
  }

  async setHealth(target: TargetRef, health: TargetHealth): Promise<void> {
    await this.redis.set(this.keys.health(target), encodeHealth(health), 'PX', this.ttlMs);
  }

  async delete(target: TargetRef): Promise<void> {
    const results = await this.redis
      .multi()
      .del(this.keys.snapshot(target), this.keys.health(target))
      .zrem(this.keys.targets(target.workspace), target.id)
      .exec();
    const failed = results?.find(([error]) => error !== null);
    if (failed?.[0]) throw failed[0];
  }

  async listTargets(workspace: string): Promise<string[]> {
    // Wall-clock, like the scores written by commit.
    const ids = await this.redis.zrangebyscore(this.keys.targets(workspace), Date.now(), '+inf');
    return ids.sort();
  }

  private async runCommit(keys: string[], args: (string | Buffer)[]): Promise<number> {
    try {
      try {
        return Number(await this.redis.evalsha(COMMIT_SHA, keys.length, ...keys, ...args));
      } catch (error) {
        // First use on this server (or after a restart / SCRIPT FLUSH): load it by sending the body.
        if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) throw error;
        return Number(await this.redis.eval(COMMIT_LUA, keys.length, ...keys, ...args));
      }
    } catch (error) {
      if (error instanceof Error && error.message.includes('SHELFWATCH_SNAPSHOT_CORRUPT')) {
        throw new SnapshotDecodeError(
          'stored snapshot header is unreadable; delete the target to start over',
          {
            cause: error,
          },
        );
      }
      throw error;
    }
  }
}
