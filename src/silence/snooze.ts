import type { Alert } from '../model/alert.ts';
import { conditionKey, SilenceInputError, type SilenceMatchers } from './silence.ts';
import { SILENCE_RETENTION_MS } from './store.ts';

/**
 * A snooze is a silence of one firing condition in its current episode: the fire's repeats are
 * kept back, its resolve is not, and the next episode (after it cleared) alerts as usual. With no
 * end given it lasts until the condition resolves, at most the retention.
 */
export function snoozeOf(alert: Alert, nowMs: number, endsAt: number | undefined) {
  const key = conditionKey(alert);
  if (key === null || alert.status !== 'firing') {
    throw new SilenceInputError(
      `alert ${alert.fingerprint} (${alert.kind}) is not a firing condition: only conditions can be snoozed; use "shelfwatch silence add" for events`,
    );
  }
  const matchers: SilenceMatchers = { workspace: alert.workspace, rule: alert.ruleId, condition: key };
  return { matchers, startsAt: nowMs, endsAt: endsAt ?? nowMs + SILENCE_RETENTION_MS };
}
