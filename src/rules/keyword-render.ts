/**
 * How a keyword rank alert reads (the keyword family's rendering parts, registered in
 * `keyword-rank.ts`). Plain text: each renderer escapes it.
 */
import type { Alert } from '../model/alert.ts';
import type { KeywordRankFacts } from '../model/alert-facts.ts';
import { groupDigits } from '../util/format.ts';
import {
  downSpanText,
  emailRank,
  emailRows,
  type FactRow,
  lowPointText,
  num,
  rankOf,
  rows,
  show,
  text,
} from './kind-parts.ts';

type KeywordAlert = { status: Alert['status']; facts: KeywordRankFacts };

/**
 * Why a keyword drop fired, in words: the rules' `trigger` fact is a list of internal names
 * (`positions,top_n`) that no reader should see.
 */
export function triggerText(facts: KeywordRankFacts): string | undefined {
  const trigger = text(facts.trigger);
  if (trigger === undefined) return undefined;
  const lost = num(facts.positionsLost);
  const percent = num(facts.percentWorse);
  const topN = num(facts.topN);
  const reasons = trigger.split(',').map((name) => {
    switch (name) {
      case 'positions':
        return lost === undefined ? 'lost positions' : `lost ${groupDigits(lost)} positions`;
      case 'percent':
        return percent === undefined ? 'rank much worse' : `rank ${Math.round(percent)}% worse`;
      case 'top_n':
        return topN === undefined ? 'left the top ranks' : `left the top ${groupDigits(topN)}`;
      case 'unranked':
        return 'no longer ranked for this keyword';
      default:
        return undefined;
    }
  });
  const known = reasons.filter((r) => r !== undefined);
  return known.length === 0 ? undefined : known.join(', ');
}

export function keywordRows(
  { status, facts: f }: KeywordAlert,
  timeZone: string,
  locale?: string,
): FactRow[] {
  return rows((add) => {
    add('Keyword', text(f.keyword));
    // "#4 → #4" would read as no change: a recovery names the rank it came back to and the one before the drop.
    if (status === 'resolved') add('Rank', `${rankOf(f.after)} (before the drop: ${rankOf(f.before)})`);
    else add('Rank', `${rankOf(f.before)} → ${rankOf(f.after)}`);
    add('Why', triggerText(f));
    add('Low point', lowPointText(f));
    add('Down', downSpanText(f.downForMs, f.firedAt, timeZone, locale));
  });
}

export function keywordDropEmailRows({ facts: f }: KeywordAlert): FactRow[] {
  return emailRows(
    ['Keyword', show(f.keyword)],
    ['Rank', `${emailRank(f.before)} → ${emailRank(f.after)}`],
    ['Positions lost', show(f.positionsLost)],
    ['Why', triggerText(f) ?? '—'],
  );
}

export function keywordRecoveredEmailRows(
  { facts: f }: KeywordAlert,
  timeZone: string,
  locale?: string,
): FactRow[] {
  return emailRows(
    ['Keyword', show(f.keyword)],
    // "#2 → #3" would read as a fall: a recovery names the rank it is back at and the one before the drop.
    ['Rank', `${emailRank(f.after)} (before the drop: ${emailRank(f.before)})`],
    ['Low point', lowPointText(f) ?? '—'],
    ['Down', downSpanText(f.downForMs, f.firedAt, timeZone, locale) ?? '—'],
  );
}
