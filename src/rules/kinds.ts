/**
 * The one registry of alert kinds: every family's kinds with their labels and rendering parts.
 * `satisfies KindTable` (a `Record<AlertKind, …>` whose entry for each kind takes that kind's
 * facts) makes a kind added to the model's union without its parts, or parts reading a fact the
 * kind does not have, a compile error. Each configured rule kind's judge is registered here too.
 * Adding a kind: docs/development.md, "Adding an alert kind".
 */
import type { AlertKind } from '../model/alert.ts';
import type { Observation } from '../model/observation.ts';
import { bsrJudges, bsrKinds } from './bsr.ts';
import { compJudges, compKinds } from './comps.ts';
import type { RuleConfig, RuleKind } from './config.ts';
import { keywordJudges, keywordKinds } from './keyword-rank.ts';
import type { KindParts, KindTable, RankEffect } from './kind-parts.ts';
import { redisHealthKinds } from './redis-health.ts';
import type { ReviewPass } from './review-track.ts';
import { reviewJudges, reviewKinds } from './reviews.ts';
import { salesJudges, salesKinds } from './sales.ts';
import type { Judge, Scope } from './scope.ts';
import { sentimentJudges, sentimentKinds } from './sentiment.ts';
import { sourceHealthJudges, sourceHealthKinds } from './source-health.ts';

export const KINDS = {
  ...keywordKinds,
  ...bsrKinds,
  ...reviewKinds,
  ...compKinds,
  ...sentimentKinds,
  ...salesKinds,
  ...sourceHealthKinds,
  ...redisHealthKinds,
} satisfies KindTable;

const TABLE: KindTable = KINDS;

/** The parts of one kind, typed by it: `partsOf(alert.kind).rows(alert, zone)`. */
export function partsOf<K extends AlertKind>(kind: K): KindParts<K> {
  return TABLE[kind];
}

/** Which rank an alert of the kind is about and how it leaves it; undefined for kinds not about a rank. */
export function rankEffectOf(kind: AlertKind): RankEffect | undefined {
  return TABLE[kind].rank;
}

type RulesByKind = { [R in RuleConfig as R['kind']]: R };
/** Every configured rule kind with how it judges a poll (null: not on observations). */
type JudgeTable = { [K in RuleKind]: Judge<RulesByKind[K]> | null };

export const JUDGES = {
  ...keywordJudges,
  ...bsrJudges,
  ...reviewJudges,
  ...compJudges,
  ...sentimentJudges,
  ...salesJudges,
  ...sourceHealthJudges,
} satisfies JudgeTable;

const JUDGE_TABLE: JudgeTable = JUDGES;

/** Judges one ok poll with one configured rule (through its family's judge). */
export function judge(
  scope: Scope,
  rule: RuleConfig,
  prev: Observation | undefined,
  next: Observation,
  reviewPass: ReviewPass | undefined,
): void {
  judgeAs(rule.kind, rule, scope, prev, next, reviewPass);
}

function judgeAs<K extends RuleKind>(
  kind: K,
  rule: RulesByKind[K],
  scope: Scope,
  prev: Observation | undefined,
  next: Observation,
  reviewPass: ReviewPass | undefined,
): void {
  const of: JudgeTable[K] = JUDGE_TABLE[kind];
  of?.(scope, rule, prev, next, reviewPass);
}

export type { FactRow, KindParts, RankEffect } from './kind-parts.ts';
