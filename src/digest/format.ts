/**
 * Wording shared by the text and HTML parts, so both say exactly the same thing. These return
 * plain text; the HTML template escapes every string it gets from here.
 */
import { amount, groupDigits, money, signedMoney } from '../util/format.ts';
import { dayHourLabel } from './dates.ts';
import type { DigestFigures, KeywordMove, PairRef, Revision, SalesMover, SalesSection } from './types.ts';

export { amount, money };

export const QUIET_LINE =
  'All quiet: no sales moves, no new reviews, no rank changes worth reporting — shelfwatch is running.';

export const FOOTNOTES = [
  '† Provisional: the API may revise a day’s figures for 14 days; changes show up under “Revisions since the last digest”, never as a second count.',
  'Net = royalties − ad spend, in the same currency. Totals are per currency and never added across currencies.',
  'ACoS here = ad spend ÷ royalties. The API reports no ad-attributed sales, so this is not Amazon’s ACoS (ad spend ÷ ad-attributed sales): it tells how much of the royalties the ads cost.',
  '“No data” means the API returned no figures for that day; it is never counted as 0.',
  'Rank moves compare medians on a log scale: #500,000 → #300,000 and #50 → #30 are the same move (×1.67). BSR compares the local day with the day before; keywords compare with the last digest.',
];

/** The digest's line on silenced alerts, or null when none were silenced that day. */
export function silencedLine(f: DigestFigures): string | null {
  const s = f.silenced;
  if (s === undefined || s.count === 0) return null;
  const reasons = s.reasons.slice(0, 3).join('; ') + (s.reasons.length > 3 ? '; …' : '');
  return `Silenced: ${plural(s.count, 'alert')} recorded, not sent (${reasons}). See "shelfwatch silence list".`;
}

export function rank(n: number | null): string {
  return n === null ? 'unranked' : `#${groupDigits(Math.round(n))}`;
}

export function pct(ratio: number | null): string {
  return ratio === null ? '—' : `${(ratio * 100).toFixed(1)}%`;
}

export function rating(value: number | null): string {
  return value === null ? '—' : `${value.toFixed(1)}★`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${groupDigits(n)} ${n === 1 ? one : many}`;
}

export function pairName(pair: PairRef, title: string | null): string {
  return title === null
    ? `${pair.asin} ${pair.marketplace}`
    : `“${title}” (${pair.asin}, ${pair.marketplace})`;
}

/** `×1.67 better` for a log10 change (positive = a lower, better rank). */
export function factor(change: number): string {
  return `×${(10 ** Math.abs(change)).toFixed(2)} ${change >= 0 ? 'better' : 'worse'}`;
}

export function keywordMoveText(m: KeywordMove): string {
  const move = `${rank(m.before)} → ${rank(m.after)}`;
  return `“${m.keyword}” (${m.asin}, ${m.marketplace}): ${move}${m.change === null ? '' : ` (${factor(m.change)})`}`;
}

export function salesMoverText(m: SalesMover): string {
  const change =
    m.changePct === null ? 'up from nothing' : `${m.changePct > 0 ? '+' : ''}${Math.round(m.changePct)}%`;
  return `${m.asin} ${m.marketplace}: royalties ${money(m.yesterday, m.currency)} vs a daily average of ${money(m.baseline, m.currency)} (${change})`;
}

/** `In all: royalties +4.28 USD over 12 revised figures; royalties -0.10 EUR over 1 revised figure`. */
export function revisionSummary(totals: Extract<SalesSection, { status: 'ok' }>['revisionTotals']): string {
  const parts = totals.map(
    (t) => `royalties ${signedMoney(t.royalties, t.currency)} over ${plural(t.figures, 'revised figure')}`,
  );
  return `In all: ${parts.join('; ')}`;
}

const FIELD_NAMES = { royalties: 'Royalties', adSpend: 'Ad spend', units: 'Units' } as const;

/** `Royalties for B0… US on 2026-11-18 revised 87.12 → 91.40 USD`. */
export function revisionText(r: Revision): string {
  const where = `${r.asin} ${r.marketplace} on ${r.date}`;
  switch (r.kind) {
    case 'revised': {
      const unit = r.currency === null ? '' : ` ${r.currency}`;
      const show = (n: number) => (r.currency === null ? groupDigits(n) : amount(n, r.currency));
      return `${FIELD_NAMES[r.field]} for ${where} revised ${show(r.before)} → ${show(r.after)}${unit}`;
    }
    case 'late':
      return `${where} reported late: royalties ${money(r.royalties, r.currency)} (was no data)`;
    case 'withdrawn':
      return `${where} no longer reported (was royalties ${money(r.royalties, r.currency)}); now no data`;
  }
}

export function reviewWhen(ms: number, timeZone: string): string {
  return dayHourLabel(ms, timeZone);
}

/** `Daily digest for acme — Sat 21 Nov: 87.12 USD royalties, 3 new reviews`. */
export function subjectOf(f: DigestFigures): string {
  const parts: string[] = [];
  if (f.sales.status === 'unavailable') parts.push('sales data unavailable');
  if (f.sales.status === 'ok') {
    const totals = f.sales.totals.filter((t) => t.yesterday !== null);
    parts.push(
      totals.length === 0
        ? 'no sales data'
        : `${totals.map((t) => money(t.yesterday?.royalties ?? 0, t.currency)).join(' + ')} royalties`,
    );
  }
  const n = f.reviews.items.length;
  parts.push(n === 0 ? 'no new reviews' : `${plural(n, 'new review')}`);
  if (f.quiet) parts.push('all quiet');
  return `Daily digest for ${f.workspace} — ${f.dayLabel}: ${parts.join(', ')}`;
}

/** A note for days that are not 24 hours long, so a 25-hour day's figures are not a surprise. */
export function dayNote(f: DigestFigures): string {
  if (f.dayHours === 24) return '';
  return ` — a ${f.dayHours}-hour day: the clocks ${f.dayHours > 24 ? 'went back' : 'went forward'}`;
}

/** A campaign as people call it: its configured name, else its id. */
export function campaignName(c: { campaignId: string; campaignName?: string }): string {
  return c.campaignName ?? c.campaignId;
}

/** The campaign's book after its name: ` (“Title”, ASIN)`, ` (ASIN)` when untitled, or nothing. */
export function campaignBook(c: { asin: string | null; title: string | null }): string {
  if (c.asin === null) return '';
  return c.title === null ? ` (${c.asin})` : ` (“${c.title}”, ${c.asin})`;
}
