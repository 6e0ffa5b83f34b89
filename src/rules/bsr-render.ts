/**
 * How a best-seller rank alert reads (the BSR family's rendering parts, registered in `bsr.ts`).
 * Plain text: each renderer escapes it.
 */
import type { BsrRankFacts, BsrRemovalFacts } from '../model/alert-facts.ts';
import {
  change,
  downSpanText,
  emailRank,
  emailRows,
  type FactRow,
  lowPointText,
  rankOf,
  rows,
  show,
  text,
} from './kind-parts.ts';

type BsrAlert = { facts: BsrRankFacts | BsrRemovalFacts };
type RankAlert = { facts: BsrRankFacts };
type RemovalAlert = { facts: BsrRemovalFacts };

const bookRows = ({ facts: f }: BsrAlert, add: (label: string, value: string | undefined) => void) => {
  add('Book', text(f.bookTitle));
  add('Category', text(f.category));
  add('Rank', `${rankOf(f.before)} → ${rankOf(f.after)}`);
};

/** Chat rows of a worsened or recovered rank. */
export const rankRows = (alert: RankAlert, timeZone: string, locale?: string): FactRow[] =>
  rows((add) => {
    bookRows(alert, add);
    add('Low point', lowPointText(alert.facts));
    add('Down', downSpanText(alert.facts.downForMs, alert.facts.firedAt, timeZone, locale));
  });

/** Chat rows of a removed rank. */
export const removedRows = (alert: RemovalAlert): FactRow[] => rows((add) => bookRows(alert, add));

/** Chat rows of a restored rank: how long it was gone. */
export const restoredRows = (alert: RemovalAlert, timeZone: string, locale?: string): FactRow[] =>
  rows((add) => {
    bookRows(alert, add);
    add('Removed', downSpanText(alert.facts.downForMs, alert.facts.removedAt, timeZone, locale));
  });

/** Email rows of any BSR alert: the category and the change. */
export const emailBsr = ({ facts: f }: BsrAlert): FactRow[] =>
  emailRows(
    ['Category', show(f.category)],
    ['Best-seller rank', change(emailRank(f.before), emailRank(f.after))],
  );

/** Email rows of a recovered rank: how low it went and for how long. */
export const recoveredEmailRows = (alert: RankAlert, timeZone: string, locale?: string): FactRow[] => [
  ...emailBsr(alert),
  ...emailRows(
    ['Low point', lowPointText(alert.facts) ?? '—'],
    ['Down', downSpanText(alert.facts.downForMs, alert.facts.firedAt, timeZone, locale) ?? '—'],
  ),
];

/** Email rows of a restored rank. */
export const restoredEmailRows = (alert: RemovalAlert, timeZone: string, locale?: string): FactRow[] => [
  ...emailBsr(alert),
  ...emailRows([
    'Removed',
    downSpanText(alert.facts.downForMs, alert.facts.removedAt, timeZone, locale) ?? '—',
  ]),
];
