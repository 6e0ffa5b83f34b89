/**
 * The process's side of a lost Redis state (poll/state-loss.ts): said as an error line, a metric and
 * a `state_lost` alert; noticed on a timer; and `/readyz` not ready for a while after.
 */
import type { AlertSink } from '../model/alert.ts';
import type { Logger } from '../ops/logger.ts';
import type { Metrics } from '../ops/metrics.ts';
import type { StateLoss, StateLossInfo } from '../poll/state-loss.ts';
import { stateLostAlert } from '../rules/redis-health.ts';
import type { Clock } from '../util/clock.ts';

/** How long `/readyz` answers "not ready" after this process noticed a loss. */
export const STATE_LOSS_NOT_READY_MS = 60_000;

export async function sayStateLoss(
  runtime: { logger: Logger; metrics: Metrics; pollDeps: { alerts: AlertSink } },
  info: StateLossInfo,
): Promise<void> {
  runtime.logger.error(
    { previousEpoch: info.previousEpoch, epoch: info.epoch },
    'Redis lost the shelfwatch state (FLUSHALL, a restart without persistence or a fail-over to an empty replica): baselines, dedup log, group buffers and schedulers are rebuilt; reviews published since the last poll a live process remembers are alerted as new',
  );
  runtime.metrics.stateLost();
  // Every process that notices raises it; the new marker names it, so it is delivered once.
  await runtime.pollDeps.alerts
    .enqueue([
      stateLostAlert({ previousEpoch: info.previousEpoch, epoch: info.epoch, detectedAt: info.detectedAtMs }),
    ])
    .catch((error: unknown) => runtime.logger.warn({ err: error }, 'could not enqueue the state_lost alert'));
}

/** The readiness check: throws while a loss noticed by this process is recent. */
export function stateReadiness(runtime: { stateLoss: StateLoss; clock: Clock }): void {
  const last = runtime.stateLoss.last;
  if (last === undefined) return;
  if (runtime.clock.now() - last.detectedAtMs < STATE_LOSS_NOT_READY_MS) {
    throw new Error(`Redis lost the state at ${new Date(last.detectedAtMs).toISOString()}; rebuilding`);
  }
}
