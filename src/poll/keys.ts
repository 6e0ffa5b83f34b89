import { type KeyPrefix, keyPart, prefixOf } from '../util/redis-keys.ts';

/**
 * The poll's Redis key, under the run's prefix: one target's lease (lease.ts). Do not change the
 * string: a running worker's lease is found by it.
 */
export function leaseKey(prefix: KeyPrefix, workspace: string, targetId: string): string {
  return `${prefixOf(prefix, workspace)}:lease:${keyPart(workspace)}:${targetId}`;
}

/**
 * The marker of this Redis's shelfwatch state (state-loss.ts): written once, it cannot survive a
 * FLUSHALL, a restart without persistence or a fail-over to an empty replica, so a process that
 * knew it and finds it gone or changed knows the state was lost.
 */
export function stateEpochKey(prefix: string): string {
  return `${prefix}:state:epoch`;
}

/** The last loss of state, as the first process that noticed it recorded it (`status` reads it). */
export function stateLostKey(prefix: string): string {
  return `${prefix}:state:lost`;
}

/**
 * After a loss: per target of a workspace, what the live processes remember of its latest good poll
 * (hash field: the target id, and `<id>@` its time). Polls that find no baseline judge against it.
 */
export function recoveredCutoffsKey(prefix: string, workspace: string): string {
  return `${prefix}:state:recovered:${keyPart(workspace)}`;
}

/** Written (10 s TTL) by `/readyz` and while Redis is full: a write that goes through means writable. */
export function readyProbeKey(prefix: string): string {
  return `${prefix}:state:probe`;
}

/** Claimed (60 s) by the process that raises `redis_writable` for a stretch: one alert, not one each. */
export function writableAlertKey(prefix: string): string {
  return `${prefix}:state:writable-alert`;
}

/**
 * A book's title and author as the API named it, for a book the workspace does not watch (a
 * campaign's book): looked up once (title-cache.ts), kept with a TTL. `:lookup` is the short
 * claim that keeps two polls from asking at once.
 */
export function bookTitleKey(prefix: KeyPrefix, workspace: string, asin: string): string {
  return `${prefixOf(prefix, workspace)}:title:${keyPart(workspace)}:${asin}`;
}
