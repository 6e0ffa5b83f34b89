/**
 * The sales figures as a table people read like a report: one row per measure, columns for the
 * digest day, the 7 days and the change (the day against the 7 days' daily average). Provisional
 * figures carry a dagger after the value: a leading "*" read like a list bullet.
 */
import { groupDigits, money } from '../util/format.ts';
import type { Amounts } from './types.ts';

export const PROVISIONAL_MARK = '†';

type Day = (Amounts & { provisional: boolean }) | null;
/** `daysWithData` absent: the 7 days all count (currency totals). */
type Week = (Amounts & { daysWithData?: number; provisional: boolean }) | null;

export interface SalesTable {
  head: [label: string, day: string, week: string, change: string];
  rows: [label: string, day: string, week: string, change: string][];
}

/**
 * `+19%`: the day against the daily average of the week's other days with data (the day itself
 * left out, as the sales movers do); '—' when there is nothing to compare with.
 */
function change(day: number | null, weekTotal: number | null, days: number): string {
  if (day === null || weekTotal === null || days <= 1) return '—';
  const average = (weekTotal - day) / (days - 1);
  if (average === 0) return day === 0 ? '±0%' : '—';
  const pct = Math.round(((day - average) / Math.abs(average)) * 100);
  return pct === 0 ? '±0%' : `${pct > 0 ? '+' : '−'}${Math.abs(pct)}%`;
}

const units = (n: number): string => `${groupDigits(n)} ${n === 1 ? 'unit' : 'units'}`;
const acosText = (acos: number | null): string => (acos === null ? '—' : `${(acos * 100).toFixed(1)}%`);

/** The measures of one currency's day and week (a total or one title). */
export function salesTable(dayLabel: string, currency: string, day: Day, week: Week): SalesTable {
  const mark = (provisional: boolean | undefined) => (provisional === true ? PROVISIONAL_MARK : '');
  const dm = mark(day?.provisional);
  const wm = mark(week?.provisional);
  const days = week === null ? 0 : (week.daysWithData ?? 7);
  const cashRow = (label: string, pick: (a: Amounts) => number | null): SalesTable['rows'][number] => {
    const d = day === null ? null : pick(day);
    const w = week === null ? null : pick(week);
    return [
      label,
      day === null ? 'no data' : d === null ? '—' : `${money(d, currency)}${dm}`,
      week === null ? 'no data' : w === null ? '—' : `${money(w, currency)}${wm}`,
      change(d, w, days),
    ];
  };
  const weekLabel = week !== null && days < 7 ? `7 days (${days} with data)` : '7 days';
  return {
    head: [currency, dayLabel, weekLabel, 'change'],
    rows: [
      cashRow('Royalties', (a) => a.royalties),
      [
        'Units',
        day === null ? 'no data' : `${groupDigits(day.units)}${dm}`,
        week === null ? 'no data' : `${groupDigits(week.units)}${wm}`,
        change(day?.units ?? null, week?.units ?? null, days),
      ],
      cashRow('Ad spend', (a) => a.adSpend),
      cashRow('Net', (a) => a.net),
      [
        'ACoS',
        day === null ? 'no data' : acosText(day.acos),
        week === null ? 'no data' : acosText(week.acos),
        '',
      ],
    ],
  };
}

/** The table as aligned plain-text lines (labels left, figures right), each indented by `indent`. */
export function tableLines(table: SalesTable, indent: string): string[] {
  const all = [table.head, ...table.rows];
  const widths = table.head.map((_, i) => Math.max(...all.map((row) => [...(row[i] ?? '')].length)));
  const pad = (text: string, i: number) => {
    const room = (widths[i] ?? 0) - [...text].length;
    return i === 0 ? text + ' '.repeat(room) : ' '.repeat(room) + text;
  };
  return all.map((row) => `${indent}${row.map(pad).join('   ').trimEnd()}`);
}

/** A currency total's week with the number of its days that had data (from its daily royalties). */
export function weekOf(total: { week: Week; daily: readonly (number | null)[] }): Week {
  return total.week === null
    ? null
    : { ...total.week, daysWithData: total.daily.filter((d) => d !== null).length };
}

/** One row per title: royalties (and units) of the day and the 7 days, and the change. */
export function titlesTable(
  dayLabel: string,
  pairs: readonly { name: string; currency: string; yesterday: Day; week: Week }[],
): SalesTable {
  return {
    head: ['Title', dayLabel, '7 days', 'change'],
    rows: pairs.map((p) => {
      const mark = (provisional: boolean) => (provisional ? PROVISIONAL_MARK : '');
      const day =
        p.yesterday === null
          ? 'no data'
          : `${money(p.yesterday.royalties, p.currency)}${mark(p.yesterday.provisional)} (${units(p.yesterday.units)})`;
      const partial =
        p.week !== null && (p.week.daysWithData ?? 7) < 7 ? `, ${p.week.daysWithData} of 7 days` : '';
      const week =
        p.week === null
          ? 'no data'
          : `${money(p.week.royalties, p.currency)}${mark(p.week.provisional)} (${units(p.week.units)}${partial})`;
      return [
        p.name,
        day,
        week,
        change(p.yesterday?.royalties ?? null, p.week?.royalties ?? null, p.week?.daysWithData ?? 7),
      ];
    }),
  };
}
