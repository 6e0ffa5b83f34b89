/**
 * The Redis-health family: alerts about the deployment's Redis rather than a workspace, raised by
 * the running process (not by a configured rule), on the routes that match them. `state_lost`: Redis
 * forgot shelfwatch's state (app/state-watch.ts); `redis_writable`: Redis accepts writes again after
 * a stretch of refusing them for want of memory (app/redis-full.ts), the first moment any alert about
 * that stretch can be delivered at all.
 */
import type { Alert, AlertOf } from '../model/alert.ts';
import type { RedisWritableFacts, StateLostFacts } from '../model/alert-facts.ts';
import { formatDuration } from '../util/duration.ts';
import { localTime } from '../util/local-time.ts';
import { fingerprint } from './fingerprint.ts';
import { count, emailRows, type FamilyParts, rows, show, time } from './kind-parts.ts';

/** The workspace of alerts about the deployment (as a disabled channel's, deliver/channel-health.ts). */
const DEPLOYMENT = '*';
const RULE_ID = 'redis-health';

const LOST =
  'baselines, rule state, the dedup log, group buffers, budget windows and job schedulers (rebuilt)';

/** An alert about the deployment: its fingerprint from its kind and the occurrence `observation`. */
function deploymentAlert<K extends 'state_lost' | 'redis_writable'>(
  kind: K,
  observation: string,
  fields: Pick<AlertOf<K>, 'severity' | 'status' | 'title' | 'facts' | 'observedAt'>,
): AlertOf<K> {
  const subject = { scope: 'workspace' as const };
  return {
    fingerprint: fingerprint({ workspace: DEPLOYMENT, ruleId: RULE_ID, kind, subject, observation }),
    workspace: DEPLOYMENT,
    ruleId: RULE_ID,
    kind,
    subject,
    ...fields,
  } as AlertOf<K>;
}

/**
 * One per loss: the fingerprint is the new state marker, which every process that notices the loss
 * reads the same, so two processes raising it enqueue one delivery (the same job ids).
 */
export function stateLostAlert(facts: StateLostFacts): Alert {
  return deploymentAlert('state_lost', `epoch:${facts.epoch}`, {
    severity: 'critical',
    status: 'firing',
    title:
      'Redis lost the shelfwatch state (FLUSHALL, a restart without persistence or a fail-over to an empty replica); reviews published since the last poll a live process remembers are alerted as new',
    facts,
    observedAt: facts.detectedAt,
  });
}

/** One per stretch of refused writes (`since` names it), when a write goes through again. */
export function redisWritableAlert(facts: RedisWritableFacts, nowMs: number): Alert {
  return deploymentAlert('redis_writable', `full:${facts.since}`, {
    severity: 'warning',
    status: 'resolved',
    title: `Redis accepts writes again after refusing them for want of memory for ${formatDuration(facts.fullForMs)} (maxmemory): polls and deliveries resume`,
    facts,
    observedAt: nowMs,
  });
}

/** The family's kinds as the renderers see them (registered in `kinds.ts`). */
export const redisHealthKinds = {
  state_lost: {
    label: 'Redis lost the state',
    noun: ['lost Redis state', 'lost Redis states'],
    rows: ({ facts: f }, zone) =>
      rows((add) => {
        add('Noticed', localTime(f.detectedAt, zone));
        add('Lost', LOST);
      }),
    emailRows: ({ facts: f }, zone) => emailRows(['Noticed', time(f.detectedAt, zone)], ['Lost', LOST]),
  },
  redis_writable: {
    label: 'Redis accepts writes again',
    noun: ['Redis recovery', 'Redis recoveries'],
    rows: ({ facts: f }, zone) =>
      rows((add) => {
        add('Full since', localTime(f.since, zone));
        add('Full for', formatDuration(f.fullForMs));
        add('Writes refused', count(f.refused));
      }),
    emailRows: ({ facts: f }, zone) =>
      emailRows(
        ['Full since', time(f.since, zone)],
        ['Full for', formatDuration(f.fullForMs)],
        ['Writes refused', show(f.refused)],
      ),
  },
} satisfies FamilyParts<'state_lost' | 'redis_writable'>;
