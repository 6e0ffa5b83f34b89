import type { Alert, AlertFactsByKind, AlertKind, AlertSubject } from '../model/alert.ts';
import type { BookFacts } from '../model/alert-facts.ts';
import type { Observation } from '../model/observation.ts';
import type { ConditionState } from '../rule-state/condition.ts';
import type { KeywordState } from '../rule-state/keyword-state.ts';
import { type Judgement, stepCondition, type Transition } from './condition.ts';
import { fingerprint } from './fingerprint.ts';
import type { KeywordPass } from './keyword-pass.ts';
import type { ReviewPass } from './review-track.ts';

/** A book as people know it, from its latest book snapshot. */
export interface BookName {
  title: string;
  author: string | null;
}

/** Who is evaluating and when. `nowMs` is the poll's time: rules never read the clock. */
export interface RuleContext {
  workspace: string;
  targetId: string;
  nowMs: number;
  /**
   * Titles of the books a keyword or review poll is about, keyed `ASIN|MARKETPLACE` and `ASIN`
   * (any marketplace: reviews carry none), read by the poller from the book snapshots.
   */
  books?: ReadonlyMap<string, BookName>;
  /** The configured name of the campaign a reviews poll is about (`campaigns[].name`). */
  campaignName?: string;
}

/** The campaign as people call it, `“Spring ARC”`, else its id. */
export function campaignLabel(ctx: RuleContext, campaignId: string): string {
  return ctx.campaignName === undefined ? campaignId : `“${ctx.campaignName}”`;
}

/** The book's name where the rules know it, `“Title” (B0…)`, else the bare ASIN. */
export function bookName(ctx: RuleContext, asin: string, marketplace: string | null): string {
  const book = bookOf(ctx, asin, marketplace);
  return book === undefined ? asin : `“${book.title}” (${asin})`;
}

export function bookOf(ctx: RuleContext, asin: string, marketplace: string | null): BookName | undefined {
  return (
    (marketplace === null ? undefined : ctx.books?.get(`${asin}|${marketplace}`)) ?? ctx.books?.get(asin)
  );
}

/** The `bookTitle`/`author` facts, when the book's name is known. */
export function bookFacts(ctx: RuleContext, asin: string, marketplace: string | null): BookFacts {
  const book = bookOf(ctx, asin, marketplace);
  return book === undefined ? {} : { bookTitle: book.title, author: book.author };
}

/** What one evaluation reads and writes; kind modules share it so the engine stays a dispatcher. */
export interface Scope {
  ctx: RuleContext;
  /** States from the last committed poll (read only). */
  before: Record<string, ConditionState>;
  /** States to commit: only subjects seen this poll are carried over, so the record cannot grow. */
  after: Record<string, ConditionState>;
  /** Keyword columns from the last committed poll (read only). */
  keywordsBefore: KeywordState | undefined;
  /** Set up by the first keyword rule that applies: the pairing with the stored columns, the columns to commit. */
  keywordPass: KeywordPass | undefined;
  alerts: Alert[];
}

interface DraftOf<K extends AlertKind> {
  kind: K;
  status?: Alert['status'];
  subject: AlertSubject;
  observation: string;
  title: string;
  facts: AlertFactsByKind[K];
  observedAt: number;
  series?: number[] | undefined;
  severity?: Alert['severity'];
  /** The condition's episode, for transitions of a condition (see `Alert.episode`). */
  episode?: number;
}

/** What a rule raises: its kind's facts with it (a union discriminated by `kind`, like `Alert`). */
export type AlertDraft = { [K in AlertKind]: DraftOf<K> }[AlertKind];

/** Raises an alert of `rule` (any configured rule: its id and default severity). */
export function emit(
  scope: Scope,
  rule: { id: string; severity: Alert['severity'] },
  draft: AlertDraft,
): void {
  const { workspace } = scope.ctx;
  // Kind and facts come from one draft, so they match; TypeScript does not follow the pair.
  const alert = {
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
  } as Alert;
  if (draft.series !== undefined && draft.series.length > 0) alert.series = draft.series;
  if (draft.episode !== undefined) alert.episode = draft.episode;
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

/** What a stepped condition announces: the transition, its episode and the baseline the alert speaks of. */
export interface Announcement {
  transition: Transition;
  episode: number;
  /** The firing episode's baseline for a resolve; the new state's otherwise. */
  baseline: number | null;
}

/**
 * Steps the condition stored under `key` and stores where it went. Returns what to announce, or
 * null: no transition, or a resolve that is not announced (`announceResolve` false).
 */
export function advanceCondition(
  scope: Scope,
  key: string,
  state: ConditionState,
  judgement: Judgement | null,
  rule: { for: number; repeatEvery?: number | undefined },
  announceResolve: boolean,
): Announcement | null {
  const step = stepCondition(state, judgement, {
    for: rule.for,
    repeatEveryMs: rule.repeatEvery,
    at: scope.ctx.nowMs,
  });
  scope.after[key] = step.state;
  const transition = step.transition;
  if (transition === null || (transition.type === 'resolve' && !announceResolve)) return null;
  const baseline = transition.type === 'resolve' ? transition.firing.baseline : step.state.baseline;
  return { transition, episode: step.episode, baseline };
}

/**
 * How a configured rule judges one ok poll of a target (registered per rule kind in `kinds.ts`):
 * it looks only at the observations it knows and leaves the others alone.
 */
export type Judge<R> = (
  scope: Scope,
  rule: R,
  prev: Observation | undefined,
  next: Observation,
  reviewPass: ReviewPass | undefined,
) => void;

/** The previous observation when it is of `next`'s kind: a reused target id is no baseline, like a first poll. */
export function sameKind<O extends Observation>(prev: Observation | undefined, next: O): O | undefined {
  return prev?.kind === next.kind ? (prev as O) : undefined;
}
