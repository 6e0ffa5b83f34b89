/**
 * How a source-health alert reads (the family's rendering parts, registered in `source-health.ts`).
 * Plain text: each renderer escapes it.
 */
import type { AlertSubject } from '../model/alert.ts';
import type { SourceFailingFacts, SourceRecoveredFacts } from '../model/alert-facts.ts';
import { formatDuration } from '../util/duration.ts';
import { localTime } from '../util/local-time.ts';
import { count, emailRows, type FactRow, num, rows, show, text, time } from './kind-parts.ts';
import { bookOf, type RuleContext } from './scope.ts';

type FailingAlert = { subject: AlertSubject; facts: SourceFailingFacts };
type RecoveredAlert = {
  subject: AlertSubject;
  ruleId: string;
  observedAt: number;
  facts: SourceRecoveredFacts;
};

/** The target, its book's title first when known (`“Title” (book/B0…/US)`). */
const targetText = (f: { targetId?: string; bookTitle?: string }): string | undefined =>
  f.bookTitle === undefined || f.targetId === undefined ? f.targetId : `“${f.bookTitle}” (${f.targetId})`;

/** The test alert of a channel (`test-alert`) is a recovery that names the channel. */
const isSample = (alert: { ruleId: string; facts: SourceRecoveredFacts }) =>
  alert.ruleId === 'test-alert' && alert.facts.test === true;
const workspaceWide = (alert: { subject: AlertSubject }) => alert.subject.scope === 'workspace';

export const failingRows = ({ facts: f }: FailingAlert, zone: string, locale?: string): FactRow[] =>
  rows((add) => {
    add('Target', text(targetText(f)));
    add('Failed polls', count(f.failures));
    add('Last error', text(f.lastError));
    add('Paused because', text(f.pauseReason));
    add('Paused until', localTime(f.pausedUntil, zone, locale));
  });

/** A pause of the whole workspace has no target or streak to show. */
export function failingEmailRows(alert: FailingAlert, zone: string, locale?: string): FactRow[] {
  const f = alert.facts;
  return workspaceWide(alert)
    ? emailRows(
        ['Paused because', show(f.pauseReason)],
        ['Since', time(f.since, zone, locale)],
        ['Paused until', time(f.pausedUntil, zone, locale)],
      )
    : emailRows(
        ['Target', show(targetText(f))],
        ['Failures in a row', show(f.failures)],
        ['Since', time(f.since, zone, locale)],
        ['Last error', show(f.lastError)],
      );
}

export function recoveredRows(alert: RecoveredAlert, zone: string, locale?: string): FactRow[] {
  const f = alert.facts;
  if (isSample(alert))
    return rows((add) => {
      add('Channel', text(f.channel));
      add('Sent', localTime(alert.observedAt, zone, locale));
    });
  return rows((add) => {
    add('Target', text(targetText(f)));
    add('Paused because', text(f.pauseReason));
    add('Failed polls', count(f.failedPolls));
    add('Down for', num(f.downForMs) === undefined ? undefined : formatDuration(num(f.downForMs) ?? 0));
  });
}

export function recoveredEmailRows(alert: RecoveredAlert, zone: string, locale?: string): FactRow[] {
  const f = alert.facts;
  if (isSample(alert)) return emailRows(['Channel', show(f.channel)]);
  if (workspaceWide(alert))
    return emailRows(['Paused because', show(f.pauseReason)], ['Since', time(f.since, zone, locale)]);
  return emailRows(
    ['Target', show(targetText(f))],
    ['Failed polls', show(f.failedPolls)],
    ['Down since', time(f.since, zone, locale)],
  );
}

/** `book/ASIN/MP` and `keywords/ASIN/MP` targets are about one book. */
function bookOfTarget(targetId: string): { asin: string; marketplace: string } | undefined {
  const [kind, asin, marketplace] = targetId.split('/');
  if ((kind !== 'book' && kind !== 'keywords') || asin === undefined || marketplace === undefined)
    return undefined;
  return { asin, marketplace };
}

/** The book's title and author of a book's target, when the poller knows them. */
export function targetBook(
  ctx: RuleContext,
  targetId: string,
): { bookTitle?: string; author?: string | null } {
  const ref = bookOfTarget(targetId);
  const name = ref === undefined ? undefined : bookOf(ctx, ref.asin, ref.marketplace);
  return name === undefined ? {} : { bookTitle: name.title, author: name.author };
}

/** `“Title” (book/B0…/US)` where the title is known, else the target id. */
export function targetName(ctx: RuleContext, targetId: string): string {
  const { bookTitle } = targetBook(ctx, targetId);
  return bookTitle === undefined ? targetId : `“${bookTitle}” (${targetId})`;
}
