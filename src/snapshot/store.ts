import type { Alert } from '../model/alert.ts';
import type { Observation, TargetRef } from '../model/observation.ts';

/**
 * The last ok observation of each poll target, with the rules engine's state and the target's
 * health. Two adapters with the same semantics (one conformance suite runs against both):
 * `RedisSnapshotStore` for workers, `MemorySnapshotStore` for pure tests and benchmarks.
 *
 * Stored observations are the compact encoding of `encoding.ts`. It is lossless except for
 * reviews, which keep only their summaries: a stored `ReviewsObservation` comes back with
 * `title: null, body: '', reviewer: '', url: null` on every review, because rules read only the
 * summary of the previous snapshot and public free text has no business lingering in Redis.
 *
 * Nothing here may store a secret: observations, rule state and health carry ids and figures
 * only, and `lastError` is scrubbed of anything shaped like a credential before it is written.
 */

export interface StoredTarget {
  observation: Observation;
  /**
   * The rules engine's state, opaque to the store: a `Uint8Array` is kept as bytes and comes back
   * as a `Buffer`; any other value is kept as JSON and comes back through JSON.parse (so
   * `undefined` stays undefined, and a record of an older version gives its JSON state).
   */
  ruleState: unknown;
  committedAt: number;
  /** 1 after the first commit, +1 on each; 0 means "never committed" and is never stored. */
  pollSeq: number;
}

export interface TargetHealth {
  consecutiveFailures: number;
  lastOutcome: 'ok' | 'no_data' | 'error' | null;
  lastPollAt: number | null;
  lastError: string | null;
  /** Learned requests per poll (EWMA). */
  costPerPoll: number | null;
  /** JSON from the rules engine; undefined (the default) until it has state. */
  sourceHealth: unknown;
  /**
   * Alerts the poll that wrote this record raised, written with the state that says they were
   * raised and before they are enqueued (an outbox): a process killed in between leaves them here,
   * and the target's next poll enqueues them (same job ids, so at most once more). Absent: none.
   */
  pendingAlerts?: readonly Alert[];
}

export interface SnapshotStore {
  /**
   * The target's stored snapshot, or undefined when there is none (first poll: store a baseline
   * silently). Throws `SnapshotDecodeError` when a record exists but cannot be read; its `pollSeq`
   * (when not null) lets the caller overwrite it with a fresh baseline.
   */
  get(target: TargetRef): Promise<StoredTarget | undefined>;
  /**
   * Atomically replaces the snapshot and rule state, only if the stored pollSeq is still
   * `expectedSeq` (0 when there is none yet), and stores it with pollSeq `expectedSeq + 1`. This
   * compare-and-set keeps two replicas, or a re-run job, from moving the baseline twice or
   * backwards. Returns false if it lost the race. Refreshes the TTL of the snapshot, its keyword
   * dictionary and the workspace's target index.
   */
  commit(
    target: TargetRef,
    next: { observation: Observation; ruleState: unknown; committedAt: number },
    expectedSeq: number,
  ): Promise<boolean>;
  /** Health of the target's polls; all-empty defaults when none is stored. */
  getHealth(target: TargetRef): Promise<TargetHealth>;
  /** Replaces the target's health (last write wins) and refreshes its TTL. */
  setHealth(target: TargetRef, health: TargetHealth): Promise<void>;
  /** Forgets the target's snapshot and health, when it leaves the config. Shared dictionaries expire on their own. */
  delete(target: TargetRef): Promise<void>;
  /** Ids of the workspace's targets that have a live stored snapshot, sorted. */
  listTargets(workspace: string): Promise<string[]>;
}

export { SnapshotDecodeError, SnapshotEncodeError } from './errors.ts';
export { MemorySnapshotStore, type MemorySnapshotStoreOptions } from './memory-store.ts';
export { DEFAULT_HEALTH, DEFAULT_TTL_MS } from './record.ts';
export { RedisSnapshotStore, type RedisSnapshotStoreOptions } from './redis-store.ts';
