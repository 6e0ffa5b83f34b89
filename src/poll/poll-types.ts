import type { AnalyticsClient } from '../api/index.ts';
import type { PauseEpisodes } from '../budget/pause-episode.ts';
import type { RedisRequestBudget } from '../budget/request-budget.ts';
import type { RedisHistoryStore } from '../history/store.ts';
import type { AlertSink } from '../model/alert.ts';
import type { Logger } from '../ops/logger.ts';
import type { SnapshotStore } from '../snapshot/store.ts';
import type { Clock } from '../util/clock.ts';
import type { TargetLease } from './lease.ts';
import type { TargetRegistry } from './registry.ts';
import type { PollMemory, StateLossGuard } from './state-loss.ts';
import type { TitleCache } from './title-cache.ts';

export interface PollJobData {
  workspace: string;
  targetId: string;
}

// Declared beside their implementations (registry.ts, model/alert.ts) so that book-names.ts,
// pause-alerts.ts and deliver/enqueue.ts need not import the poll's types; re-exported here.
export type { AlertSink, TargetRegistry };

export interface PollDeps {
  clientFor(workspace: string): AnalyticsClient;
  store: SnapshotStore;
  budget: RedisRequestBudget;
  /** Workspace pauses the API caused, alerted once per episode (budget/pause-episode.ts). */
  pauses: PauseEpisodes;
  registry: TargetRegistry;
  alerts: AlertSink;
  clock: Clock;
  logger: Logger;
  /** After a 401, how long the workspace rests before one request tries the key again. */
  authRecheckMs?: number;
  /**
   * Runs a poll's requests with its learned cost reserved up front (`walkWithinBudget`, wired by the
   * runtime); absent, each request takes its own turn at the budget gate.
   */
  reserveWalk?: <T>(
    workspace: string,
    costPerPoll: number | null,
    signal: AbortSignal,
    walk: () => Promise<T>,
  ) => Promise<T>;
  /** Hourly rank and BSR points kept for charts (absent: none kept). */
  history?: RedisHistoryStore;
  /** One poll of a target at a time across processes (absent in single-process tests). */
  lease?: TargetLease;
  /** When each target's last good poll started, as this process saw it (state-loss.ts). */
  memory?: PollMemory;
  /** Titles of campaign books that are not watched, looked up once (absent: named by ASIN). */
  titles?: TitleCache;
  /** Asked when a target has no baseline: was it lost, and since when is what the answer shows new? */
  stateLoss?: StateLossGuard;
}

export interface PollContext {
  signal: AbortSignal;
  /**
   * The poll's identity in time: the scheduled time of the job, stable across retries and re-runs,
   * so a re-run after a crash evaluates to the same fingerprints.
   */
  pollTimeMs: number;
}

export type PollResult =
  | { status: 'ok'; alerts: number; requests: number; committed: boolean; baseline: boolean }
  | { status: 'no_data' | 'error'; alerts: number; requests: number; reason: string }
  | { status: 'stale' | 'duplicate' };
