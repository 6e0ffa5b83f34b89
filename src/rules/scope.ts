import type { Alert, AlertKind, AlertSubject } from '../model/alert.ts';
import type { ConditionState } from './condition.ts';
import type { RuleConfig } from './config.ts';
import { fingerprint } from './fingerprint.ts';

/** Who is evaluating and when. `nowMs` is the poll's time: rules never read the clock. */
export interface RuleContext {
  workspace: string;
  targetId: string;
  nowMs: number;
}

/** Condition states of one poll target, keyed `ruleId|subjectKey`. Plain JSON. */
export interface RuleState {
  conditions: Record<string, ConditionState>;
}

/** What one evaluation reads and writes; kind modules share it so the engine stays a dispatcher. */
export interface Scope {
  ctx: RuleContext;
  /** States from the last committed poll (read only). */
  before: Record<string, ConditionState>;
  /** States to commit: only subjects seen this poll are carried over, so the record cannot grow. */
  after: Record<string, ConditionState>;
  alerts: Alert[];
}

type Facts = Alert['facts'];

export interface AlertDraft {
  kind: AlertKind;
  status?: Alert['status'];
  subject: AlertSubject;
  observation: string;
  title: string;
  facts: Facts;
  observedAt: number;
  series?: number[] | undefined;
  severity?: Alert['severity'];
}

export function emit(scope: Scope, rule: RuleConfig, draft: AlertDraft): void {
  const { workspace } = scope.ctx;
  const alert: Alert = {
    fingerprint: fingerprint({
      workspace,
      ruleId: rule.id,
      kind: draft.kind,
      subject: draft.subject,
      observation: draft.observation,
    }),
    workspace,
    ruleId: rule.id,
    kind: draft.kind,
    severity: draft.severity ?? rule.severity,
    status: draft.status ?? 'firing',
    subject: draft.subject,
    title: draft.title,
    facts: draft.facts,
    observedAt: draft.observedAt,
  };
  if (draft.series !== undefined && draft.series.length > 0) alert.series = draft.series;
  scope.alerts.push(alert);
}

/** The `books` and `marketplaces` filters every observation-based rule has. */
export function appliesTo(
  rule: { books?: string[] | undefined; marketplaces?: string[] | undefined },
  asin: string,
  marketplace: string | null,
): boolean {
  if (rule.books !== undefined && !rule.books.includes(asin)) return false;
  if (rule.marketplaces !== undefined && marketplace !== null && !rule.marketplaces.includes(marketplace)) {
    return false;
  }
  return true;
}
