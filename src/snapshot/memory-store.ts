import type { Observation, TargetRef } from '../model/observation.ts';
import { type Clock, systemClock } from '../util/clock.ts';
import { DictionaryCache, storeDictionaries } from './dictionary-cache.ts';
import { SnapshotKeys } from './keys.ts';
import {
  checkTtl,
  DEFAULT_HEALTH,
  DEFAULT_TTL_MS,
  decodeHealth,
  encodeHealth,
  prepareCommit,
  readSeq,
  readStoredTarget,
} from './record.ts';
import type { SnapshotStore, StoredTarget, TargetHealth } from './types.ts';

export interface MemorySnapshotStoreOptions {
  /** Only shapes the internal keys (kept identical to Redis's so both share one layout). */
  prefix?: string;
  ttlMs?: number;
  /** Drives expiry, so tests can age entries without waiting. */
  clock?: Clock;
}

interface Entry {
  value: Buffer;
  expiresAt: number;
}

/**
 * The Redis adapter's semantics in one process: the same encoding (so the same review-summary
 * loss and the same decode errors), compare-and-set, shared dictionaries and TTLs, the latter
 * measured on the injected clock. Not shared between processes: for tests and benchmarks.
 */
export class MemorySnapshotStore implements SnapshotStore {
  private readonly keys: SnapshotKeys;
  private readonly ttlMs: number;
  private readonly clock: Clock;
  private readonly entries = new Map<string, Entry>();
  /** workspace → target id → expiry of its snapshot, like the Redis index zset. */
  private readonly index = new Map<string, Map<string, number>>();
  private readonly dictionaries = new DictionaryCache(256);

  constructor(opts: MemorySnapshotStoreOptions = {}) {
    this.keys = new SnapshotKeys(opts.prefix ?? 'mem');
    this.ttlMs = checkTtl(opts.ttlMs ?? DEFAULT_TTL_MS);
    this.clock = opts.clock ?? systemClock;
  }

  async get(target: TargetRef): Promise<StoredTarget | undefined> {
    const value = this.read(this.keys.snapshot(target));
    if (value === undefined) return undefined;
    return readStoredTarget(
      value,
      storeDictionaries(
        this.dictionaries,
        (id) => this.keys.dictionary(target.workspace, id),
        async (key) => this.read(key) ?? null,
      ),
    );
  }

  async commit(
    target: TargetRef,
    next: { observation: Observation; ruleState: unknown; committedAt: number },
    expectedSeq: number,
  ): Promise<boolean> {
    const { record, dictionary } = prepareCommit(target, next, expectedSeq);
    const key = this.keys.snapshot(target);
    const current = this.read(key);
    // Only the header matters here, as in the Redis script; an unreadable one throws SnapshotDecodeError.
    const currentSeq = current === undefined ? 0 : readSeq(current);
    if (currentSeq !== expectedSeq) return false;
    const expiresAt = this.clock.now() + this.ttlMs;
    if (dictionary !== null) {
      const dictionaryKey = this.keys.dictionary(target.workspace, dictionary.id);
      const existing = this.read(dictionaryKey);
      this.entries.set(dictionaryKey, { value: existing ?? Buffer.from(dictionary.bytes), expiresAt });
    }
    this.entries.set(key, { value: Buffer.from(record), expiresAt });
    let ids = this.index.get(target.workspace);
    if (ids === undefined) {
      ids = new Map();
      this.index.set(target.workspace, ids);
    }
    ids.set(target.id, expiresAt);
    return true;
  }

  async getHealth(target: TargetRef): Promise<TargetHealth> {
    const value = this.read(this.keys.health(target));
    return value === undefined ? { ...DEFAULT_HEALTH } : decodeHealth(value);
  }

  async setHealth(target: TargetRef, health: TargetHealth): Promise<void> {
    this.entries.set(this.keys.health(target), {
      value: encodeHealth(health),
      expiresAt: this.clock.now() + this.ttlMs,
    });
  }

  async delete(target: TargetRef): Promise<void> {
    this.entries.delete(this.keys.snapshot(target));
    this.entries.delete(this.keys.health(target));
    this.index.get(target.workspace)?.delete(target.id);
  }

  async listTargets(workspace: string): Promise<string[]> {
    const ids = this.index.get(workspace);
    if (ids === undefined) return [];
    const now = this.clock.now();
    for (const [id, expiresAt] of ids) if (expiresAt <= now) ids.delete(id);
    return [...ids.keys()].sort();
  }

  /** Live entries (snapshots, dictionaries, health) and their bytes: for tests and benchmarks. */
  stats(): { keys: number; bytes: number } {
    let keys = 0;
    let bytes = 0;
    for (const [key] of this.entries) {
      const value = this.read(key);
      if (value === undefined) continue;
      keys++;
      bytes += value.length;
    }
    return { keys, bytes };
  }

  private read(key: string): Buffer | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.clock.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }
}
