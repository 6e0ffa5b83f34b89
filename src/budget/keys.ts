import { type KeyPrefix, keyPart, prefixOf } from '../util/redis-keys.ts';

/**
 * Key layout and billing period of the request budget.
 *
 * Every key of one workspace starts with the same `prefix`, and the workspace only ever appears
 * after it. Redis Cluster hashes the first `{…}` of a key, so when the prefix carries a hash tag
 * (`{shelfwatch}`, the same tag BullMQ's queues use) every budget key, for every workspace, lands
 * in that one slot and the multi-key scripts never raise CROSSSLOT. Without a tag the keys of one
 * script would hash apart, which is why a Cluster connection refuses an untagged prefix.
 */

export interface BudgetKeys {
  /** Sorted set: one member per granted request, scored by its grant time (clock ms). */
  readonly window: string;
  /** Hash `{until, reason}`: the workspace is paused until `until` (`inf` until resumed). */
  readonly pause: string;
  /** String counter of the requests granted in the billing month `label` (`YYYY-MM`). */
  month(label: string): string;
}

/** True when the prefix has a non-empty hash tag, i.e. the first `{` is closed by a later `}`. */
export function hasHashTag(prefix: string): boolean {
  const open = prefix.indexOf('{');
  if (open < 0) return false;
  const close = prefix.indexOf('}', open + 1);
  return close > open + 1;
}

export function budgetKeys(prefix: KeyPrefix, workspace: string): BudgetKeys {
  if (workspace === '') throw new RangeError('workspace id must not be empty');
  const base = `${prefixOf(prefix, workspace)}:budget:${keyPart(workspace)}`;
  return { window: `${base}:window`, pause: `${base}:pause`, month: (label) => `${base}:month:${label}` };
}

/** Hash of the workspace's pause episodes (pause-episode.ts), beside its pause. */
export function pauseEpisodeKey(prefix: KeyPrefix, workspace: string): string {
  return `${budgetKeys(prefix, workspace).pause}:episode`;
}

export interface BillingMonth {
  /** `YYYY-MM` of the month, part of its counter's key. */
  readonly label: string;
  readonly startMs: number;
  /** Start of the next month: when the quota resets. */
  readonly endMs: number;
}

/**
 * The API's quota month is the UTC calendar month (api-contract.md), so no time zone or
 * billing-day option: a different period would disagree with the server's own counter.
 */
export function utcBillingMonth(nowMs: number): BillingMonth {
  const at = new Date(nowMs);
  const year = at.getUTCFullYear();
  const month = at.getUTCMonth();
  return {
    label: `${String(year).padStart(4, '0')}-${String(month + 1).padStart(2, '0')}`,
    startMs: Date.UTC(year, month, 1),
    endMs: Date.UTC(year, month + 1, 1),
  };
}

/** SCAN patterns of every budget key of a workspace (window, pause, episodes, months): to move it. */
export function budgetKeyPatterns(prefix: string, workspace: string): string[] {
  return [`${prefix}:budget:${keyPart(workspace)}:*`];
}
