/**
 * The snapshot folder's entry: the store's shapes (`types.ts`) and its two adapters. The adapters
 * import the shapes from `types.ts`, not from here, so this re-export makes no cycle.
 */

export { SnapshotDecodeError, SnapshotEncodeError } from './errors.ts';
export { MemorySnapshotStore, type MemorySnapshotStoreOptions } from './memory-store.ts';
export { DEFAULT_HEALTH, DEFAULT_TTL_MS } from './record.ts';
export { RedisSnapshotStore, type RedisSnapshotStoreOptions } from './redis-store.ts';
export type { SnapshotStore, StoredTarget, TargetHealth } from './types.ts';
