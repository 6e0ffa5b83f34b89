import type { WorkspacePause } from '../budget/api-outcome-policy.ts';
import type { PauseEpisodes } from '../budget/pause-episode.ts';
import type { AlertSink } from '../model/alert.ts';
import type { Logger } from '../ops/logger.ts';
import { evaluateWorkspacePause, evaluateWorkspaceRecovery } from '../rules/source-health.ts';
import type { Clock } from '../util/clock.ts';
import type { TargetRegistry } from './registry.ts';

export interface PauseAlertDeps {
  pauses: PauseEpisodes;
  registry: TargetRegistry;
  alerts: AlertSink;
  clock: Clock;
  logger: Logger;
}

/**
 * Speaks up about a workspace pause a poll set or ran into: a warning in the log when it was
 * set, and the episode's source-health alerts once they are due (kept with the episode's mark
 * until enqueued, so a crash in between loses neither the alert nor its recovery). Returns the alerts.
 */
export async function announcePause(
  deps: PauseAlertDeps,
  workspace: string,
  pause: WorkspacePause,
): Promise<number> {
  const { episode } = pause;
  if (pause.setNow) {
    deps.logger.warn(
      {
        workspace,
        reason: pause.reason,
        until: new Date(pause.untilMs).toISOString(),
        ...(pause.askedMs === undefined ? {} : { retryAfterAskedMs: pause.askedMs }),
      },
      pause.askedMs === undefined
        ? 'the API paused the workspace'
        : 'the API paused the workspace; its Retry-After was cut to what the limit can need',
    );
  }
  const { alerts } = evaluateWorkspacePause(
    workspace,
    deps.registry.rules(workspace),
    episode,
    deps.clock.now(),
  );
  // Marked with their alerts first (see PauseEpisodes.markAlerted); what an earlier process marked
  // and died before enqueueing goes too (same job ids: nothing is added twice).
  const outbox = [...episode.pendingAlerts, ...alerts];
  if (outbox.length === 0) return 0;
  await deps.pauses.markAlerted(workspace, episode.sinceMs, alerts);
  await deps.alerts.enqueue(outbox);
  await deps.pauses.markEnqueued(
    workspace,
    episode.sinceMs,
    outbox.map((alert) => alert.ruleId),
  );
  if (alerts.length === 0) return 0;
  deps.logger.error(
    { workspace, reason: episode.reason, since: new Date(episode.sinceMs).toISOString() },
    'the workspace is paused by the API; alerted',
  );
  return alerts.length;
}

/**
 * After an ok answer: closes the workspace's pause episode, if one is open and its pause is
 * over, announcing the recovery once from each rule that alerted about it. Returns the alerts.
 */
export async function closePauseEpisode(deps: PauseAlertDeps, workspace: string): Promise<number> {
  const episode = await deps.pauses.current(workspace);
  const nowMs = deps.clock.now();
  // An answer to a request granted before the pause began proves nothing about its end.
  if (episode === undefined || nowMs < episode.untilMs) return 0;
  const alerts = evaluateWorkspaceRecovery(workspace, deps.registry.rules(workspace), episode, nowMs);
  // A pause alert a crash kept from the queue goes before its recovery.
  await deps.alerts.enqueue([...episode.pendingAlerts, ...alerts]);
  await deps.pauses.end(workspace, episode.sinceMs);
  deps.logger.info(
    { workspace, reason: episode.reason, since: new Date(episode.sinceMs).toISOString() },
    'the API answers the workspace again; pause episode closed',
  );
  return alerts.length;
}
