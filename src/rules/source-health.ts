import { z } from 'zod';
import type { Alert } from '../model/alert.ts';
import type { FamilyParts } from './kind-parts.ts';
import { duration, ruleIdSchema, severitySchema } from './rule-fields.ts';
import { emit, type RuleContext, type Scope } from './scope.ts';
import {
  failingEmailRows,
  failingRows,
  recoveredEmailRows,
  recoveredRows,
  targetBook,
  targetName,
} from './source-health-render.ts';

// ---- configuration -------------------------------------------------------------------------

export const sourceHealthSchema = z.strictObject({
  id: ruleIdSchema,
  kind: z.literal('source_health'),
  severity: severitySchema.default('critical'),
  targets: z.array(z.string().min(1)).min(1).optional().describe('Only these poll target ids.'),
  failures: z.number().int().min(1).default(3).describe('Consecutive failed polls before alerting.'),
  countNoData: z.boolean().default(true).describe('Count no_data outcomes as failures.'),
  pausedFor: duration
    .prefault('30m')
    .describe('Alert when the API pauses the whole workspace (429) for this long; a 401 alerts at once.'),
});

export type SourceHealthRule = z.output<typeof sourceHealthSchema>;

/** This family's share of the rules a workspace gets when its config lists none. */
export const sourceHealthDefaults: z.input<typeof sourceHealthSchema>[] = [
  { id: 'source-health', kind: 'source_health' },
];

/** One rule's view of one poll target's failure streak. Plain JSON. */
export interface SourceHealthRuleState {
  /** Consecutive failed polls counted by this rule. */
  failures: number;
  /** When the streak's first failure was seen; names the streak in fingerprints. */
  since: number | null;
  /** Whether `source_health` was sent for this streak (so recovery is announced once, and only then). */
  alerted: boolean;
  lastError: string | null;
}

/** Per poll target, keyed by rule id. */
export interface SourceHealthState {
  rules: Record<string, SourceHealthRuleState>;
}

export type OutcomeStatus = 'ok' | 'no_data' | 'error';

const MAX_ERROR_CHARS = 300;

/** Source-health alerts read and keep no condition state: a scope that only collects alerts. */
const alertsOnly = (ctx: RuleContext): Scope => ({
  ctx,
  before: {},
  after: {},
  keywordsBefore: undefined,
  keywordPass: undefined,
  alerts: [],
});

const fresh = (): SourceHealthRuleState => ({ failures: 0, since: null, alerted: false, lastError: null });

/**
 * Source health looks at the stream of poll outcomes, not at observations: N failed polls in a row
 * raise one `source_health`, further failures stay quiet, and the first ok poll after it raises one
 * `source_recovered`. A streak that ends before N raises nothing.
 */
export function evaluateSourceHealth(
  ctx: RuleContext,
  rules: readonly { kind: string }[],
  outcomeStatus: OutcomeStatus,
  state: SourceHealthState | undefined,
  detail?: { error?: string; drift?: string | undefined },
): { alerts: Alert[]; state: SourceHealthState } {
  const scope = alertsOnly(ctx);
  const next: SourceHealthState = { rules: {} };
  for (const rule of sourceHealthRules(rules)) {
    if (rule.targets !== undefined && !rule.targets.includes(ctx.targetId)) continue;
    next.rules[rule.id] = step(
      scope,
      rule,
      outcomeStatus,
      state?.rules[rule.id] ?? fresh(),
      detail?.error,
      detail?.drift,
    );
  }
  return { alerts: scope.alerts, state: next };
}

function step(
  scope: Scope,
  rule: SourceHealthRule,
  status: OutcomeStatus,
  current: SourceHealthRuleState,
  error: string | undefined,
  drift: string | undefined,
): SourceHealthRuleState {
  const { targetId, nowMs } = scope.ctx;
  const subject = { targetId };
  // A book's target is named by its title first where the poller knows it (targetName).
  const target = targetName(scope.ctx, targetId);
  const book = targetBook(scope.ctx, targetId);
  if (status === 'ok') {
    if (current.alerted && current.since !== null) {
      emit(scope, rule, {
        kind: 'source_recovered',
        status: 'resolved',
        subject,
        observation: `streak:${current.since}:recovered`,
        title: `Polling ${target} works again after ${current.failures} failed polls (failing since ${iso(current.since)})`,
        facts: {
          targetId,
          ...book,
          failedPolls: current.failures,
          since: current.since,
          downForMs: nowMs - current.since,
        },
        observedAt: nowMs,
      });
    }
    return fresh();
  }
  if (status === 'no_data' && !rule.countNoData) return current;
  const lastError = status === 'no_data' ? 'no data' : (error ?? 'error').slice(0, MAX_ERROR_CHARS);
  const since = current.since ?? nowMs;
  const failures = current.failures + 1;
  const alerted = current.alerted || failures >= rule.failures;
  if (alerted && !current.alerted) {
    emit(scope, rule, {
      kind: 'source_health',
      subject,
      observation: `streak:${since}`,
      // Drift names the logical fields that no longer fit the contract, where, and what is there now.
      title:
        drift === undefined
          ? `Polling ${target} failed ${failures} times in a row since ${iso(since)} (last: ${lastError})`
          : `Polling ${target} failed ${failures} times in a row since ${iso(since)}: the answers no longer fit the API contract (${drift.slice(0, MAX_ERROR_CHARS)})`,
      facts: {
        targetId,
        ...book,
        failures,
        since,
        status,
        lastError,
        ...(drift === undefined ? {} : { drift: drift.slice(0, MAX_ERROR_CHARS) }),
      },
      observedAt: nowMs,
    });
  }
  return { failures, since, alerted, lastError };
}

/** What the rules see of a workspace pause episode (`budget/pause-episode.ts`). */
export interface WorkspacePauseView {
  sinceMs: number;
  untilMs: number;
  reason: string;
  alertedRuleIds: readonly string[];
}

/** The scope of workspace-wide alerts: no target, so `targetId` filters of rules do not apply. */
function workspaceScope(workspace: string, nowMs: number): Scope {
  return alertsOnly({ workspace, targetId: '*', nowMs });
}

/** The rules of this family among all of a workspace's (the rest are judged on observations). */
const sourceHealthRules = (rules: readonly { kind: string }[]): SourceHealthRule[] =>
  rules.filter((rule): rule is SourceHealthRule => rule.kind === 'source_health');

/**
 * A pause of the whole workspace by the API stops every target's polls without failing them, so
 * per-target streaks never see it: each source-health rule raises one `source_health` per pause
 * episode, at once for a refused key (401), else once the episode is known to last `pausedFor`.
 * Returns the rules that alerted now.
 */
export function evaluateWorkspacePause(
  workspace: string,
  rules: readonly { kind: string }[],
  episode: WorkspacePauseView,
  nowMs: number,
): { alerts: Alert[]; alertedRuleIds: string[] } {
  const scope = workspaceScope(workspace, nowMs);
  const alertedRuleIds: string[] = [];
  const lastsMs = Math.max(episode.untilMs, nowMs) - episode.sinceMs;
  const refused = episode.reason === 'unauthorized';
  for (const rule of sourceHealthRules(rules)) {
    if (episode.alertedRuleIds.includes(rule.id)) continue;
    if (!refused && lastsMs < rule.pausedFor) continue;
    const title = refused
      ? `The API refused the key of workspace ${workspace} (401): its polls are paused until the key works (next try ${iso(episode.untilMs)})`
      : `The API paused workspace ${workspace} (${episode.reason}) since ${iso(episode.sinceMs)}, until ${iso(episode.untilMs)}`;
    emit(scope, rule, {
      kind: 'source_health',
      subject: { scope: 'workspace' },
      observation: `pause:${episode.sinceMs}`,
      title,
      facts: {
        scope: 'workspace',
        pauseReason: episode.reason,
        since: episode.sinceMs,
        pausedUntil: episode.untilMs,
      },
      observedAt: nowMs,
      ...(refused ? { severity: 'critical' as const } : {}),
    });
    alertedRuleIds.push(rule.id);
  }
  return { alerts: scope.alerts, alertedRuleIds };
}

/** The first ok answer after a pause episode: one `source_recovered` from each rule that alerted. */
export function evaluateWorkspaceRecovery(
  workspace: string,
  rules: readonly { kind: string }[],
  episode: WorkspacePauseView,
  nowMs: number,
): Alert[] {
  const scope = workspaceScope(workspace, nowMs);
  for (const rule of sourceHealthRules(rules)) {
    if (!episode.alertedRuleIds.includes(rule.id)) continue;
    emit(scope, rule, {
      kind: 'source_recovered',
      status: 'resolved',
      subject: { scope: 'workspace' },
      observation: `pause:${episode.sinceMs}:recovered`,
      title: `Workspace ${workspace} polls again after a pause by the API (${episode.reason} since ${iso(episode.sinceMs)})`,
      facts: {
        scope: 'workspace',
        pauseReason: episode.reason,
        since: episode.sinceMs,
        downForMs: nowMs - episode.sinceMs,
      },
      observedAt: nowMs,
    });
  }
  return scope.alerts;
}

/**
 * A target whose stored rule state could not be (wholly) read was judged with fresh conditions for
 * what was lost: a firing condition may never resolve, a pending one starts again. Every
 * source-health rule of the target says so once (the poll's time names the event), on its route.
 */
export function ruleStateLostAlerts(
  ctx: RuleContext,
  rules: readonly { kind: string }[],
  reason: string,
): Alert[] {
  const scope = alertsOnly(ctx);
  const { targetId, nowMs } = ctx;
  const lastError = reason.slice(0, MAX_ERROR_CHARS);
  for (const rule of sourceHealthRules(rules)) {
    if (rule.targets !== undefined && !rule.targets.includes(targetId)) continue;
    emit(scope, rule, {
      kind: 'source_health',
      subject: { targetId },
      observation: `rule-state-lost:${nowMs}`,
      title: `Stored rule state of ${targetId} was unreadable; judged this poll against the stored observation with fresh conditions for what was lost (${lastError})`,
      facts: { targetId, failures: 0, since: nowMs, status: 'rule_state_unreadable', lastError },
      observedAt: nowMs,
    });
  }
  return scope.alerts;
}

function iso(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** The two kinds of this family, for alerts about the process itself (a disabled channel, a test). */
export const SOURCE_KINDS = { failing: 'source_health', recovered: 'source_recovered' } as const;

/** The source-health family's kinds as the renderers see them (registered in `kinds.ts`). */
export const sourceHealthKinds = {
  source_health: {
    label: 'Polling is failing',
    noun: ['polling failure', 'polling failures'],
    rows: failingRows,
    emailRows: failingEmailRows,
  },
  source_recovered: {
    label: 'Polling works again',
    noun: ['polling recovery', 'polling recoveries'],
    rows: recoveredRows,
    emailRows: recoveredEmailRows,
  },
} satisfies FamilyParts<'source_health' | 'source_recovered'>;

/** Source health is judged on poll outcomes (`evaluateSourceHealth`), not on observations. */
export const sourceHealthJudges = { source_health: null } as const;
