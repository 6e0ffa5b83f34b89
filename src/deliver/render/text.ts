/**
 * Plain-text pieces every channel shows the same way: truncation, one-line summaries, kind labels,
 * fact rows and book links (sparklines: sparkline.ts; reviews: review-view.ts). Pure (no I/O, no clock, no locale data). Everything returned here is
 * plain, unescaped text: each channel escapes for its own markup (Slack mrkdwn, HTML).
 */
import type { Alert, AlertKind, Severity } from '../../model/alert.ts';
import { formatDuration, spokenDuration } from '../../util/duration.ts';
// Formatting only (digits, money, ranks): shared so a message reads like the alert's title.
import { groupDigits, money, rank } from '../../util/format.ts';
import { oneLine } from '../../util/one-line.ts';
import { localTime } from './local-time.ts';

export const ELLIPSIS = '…';

let segmenter: Intl.Segmenter | undefined;

/** User-perceived characters (emoji with skin tones and ZWJ sequences stay whole), lazily. */
function* graphemes(text: string): Generator<string> {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  for (const { segment } of segmenter.segment(text)) yield segment;
}

/**
 * Cuts `text` to at most `maxChars` UTF-16 code units (JavaScript's `.length`, the stricter of the
 * ways a service may count), on a grapheme boundary, ending in "…" when something was cut.
 */
export function truncate(text: string, maxChars: number): string {
  return truncateMapped(text, maxChars, (g) => g);
}

/**
 * Truncates and transforms (escapes) in one pass, measuring the transformed output. So the limit
 * holds for the final string, an escape sequence (`&amp;`) is never cut in half, and the cost of
 * escaping is counted where it happens. The "…" itself is not transformed: it needs no escaping in
 * any markup we write.
 */
export function truncateMapped(text: string, maxChars: number, map: (grapheme: string) => string): string {
  if (maxChars <= 0) return '';
  let out = '';
  // Length of `out` at the last boundary that still leaves room for the ellipsis.
  let roomForEllipsis = 0;
  for (const grapheme of graphemes(text)) {
    const piece = map(grapheme);
    if (out.length + piece.length > maxChars) return out.slice(0, roomForEllipsis).trimEnd() + ELLIPSIS;
    out += piece;
    if (out.length < maxChars) roomForEllipsis = out.length;
  }
  return out;
}

/** The closing line of a list that was cut short. */
export function andMore(n: number): string {
  return `${ELLIPSIS}and ${groupDigits(n)} more`;
}

const SEVERITY_MARK: Record<Severity, string> = { critical: '🔴', warning: '🟠', info: '🔵' };

export function alertMark(alert: Alert): string {
  return alert.status === 'resolved' ? '✅' : SEVERITY_MARK[alert.severity];
}

export const KIND_LABEL: Record<AlertKind, string> = {
  keyword_rank_drop: 'Keyword rank drop',
  keyword_rank_recovered: 'Keyword rank recovered',
  bsr_worsened: 'Best-seller rank worsened',
  bsr_recovered: 'Best-seller rank recovered',
  bsr_removed: 'Best-seller rank removed',
  bsr_restored: 'Best-seller rank restored',
  review_new: 'New review',
  review_removed: 'Review removed',
  review_restored: 'Review restored',
  review_count_down: 'Review count went down',
  comp_overtook: 'Comp title moved ahead',
  comp_fell_behind: 'Comp title fell behind',
  sentiment_shift: 'Review sentiment shifted',
  sentiment_recovered: 'Review sentiment back to normal',
  royalty_change: 'Royalty change',
  sales_revision: 'Sales revised',
  source_health: 'Polling is failing',
  source_recovered: 'Polling works again',
};

/** What a header calls one alert: the sample of `test-alert` says it is a test, not its borrowed kind. */
export function kindLabel(alert: Alert): string {
  return isSampleAlert(alert) ? 'Test alert' : KIND_LABEL[alert.kind];
}

/** The sample alert `shelfwatch test-alert` sends (see sample-alert.ts). */
export function isSampleAlert(alert: Alert): boolean {
  return alert.ruleId === 'test-alert' && alert.facts.test === true;
}

/** One line of plain text (titles may hold untrusted book titles: escape it before use). */
export function alertLine(alert: Alert): string {
  return `${alertMark(alert)} ${oneLine(alert.title)}`;
}

export { amazonDomain, bookUrl } from './amazon.ts';

export interface FactRow {
  label: string;
  /** Plain text; may hold untrusted text (book titles, keywords, error text). */
  value: string;
}

/** A fact that is a non-empty string, else undefined (facts are untyped JSON). */
export const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
/** A fact that is a finite number, else undefined. */
export const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : undefined;
const rankOrNull = (v: unknown): number | null => num(v) ?? null;

/** `4.40 → 4.10` for a rating, `+74 → +62` for net sentiment points. */
function sentimentChange(f: Alert['facts']): string {
  const fmt = (v: unknown): string => {
    const n = num(v);
    if (n === undefined) return '?';
    return f.measure === 'rating' ? n.toFixed(2) : `${n > 0 ? '+' : ''}${Math.round(n * 10) / 10}`;
  };
  return `${fmt(f.before)} → ${fmt(f.after)}`;
}

/**
 * Why a keyword drop fired, in words: the rules' `trigger` fact is a list of internal names
 * (`positions,top_n`) that no reader should see.
 */
export function triggerText(facts: Alert['facts']): string | undefined {
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

/**
 * How low a recovered rank went (`lowPoint` facts; see rules/low-point.ts): undefined when the
 * episode was stored before the low point was tracked.
 */
export function lowPointText(facts: Alert['facts']): string | undefined {
  if (facts.lowPointUnranked === true) return 'unranked';
  const low = num(facts.lowPoint);
  return low === undefined ? undefined : rank(low);
}

/** When a recovered condition started and how long it lasted, in `timeZone`: `from 25 Nov 2026, 09:00 CET for 5 h 20 min`. */
export function downSpanText(facts: Alert['facts'], startKey: string, timeZone: string): string | undefined {
  const lasted = num(facts.downForMs);
  if (lasted === undefined) return undefined;
  const since = localTime(facts[startKey], timeZone);
  return `${since === undefined ? '' : `from ${since} `}for ${spokenDuration(lasted)}`;
}

/** Details beyond the title, per kind, times in `timeZone`. Review text is not here: see `reviewOf`. */
export function factRows(alert: Alert, timeZone = 'UTC'): FactRow[] {
  const f = alert.facts;
  const rows: FactRow[] = [];
  // A fact is shown on its label's line: a line break in it must not start a line of its own.
  const add = (label: string, value: string | undefined): void => {
    if (value !== undefined) rows.push({ label, value: oneLine(value) });
  };
  const count = (v: unknown): string | undefined => {
    const n = num(v);
    return n === undefined ? undefined : groupDigits(n);
  };
  const cash = (v: unknown, currency: unknown): string | undefined => {
    const n = num(v);
    const c = text(currency);
    return n === undefined || c === undefined ? undefined : money(n, c);
  };
  const provisional = f.provisional === true ? 'provisional: may still be revised for 14 days' : undefined;
  switch (alert.kind) {
    case 'keyword_rank_drop':
    case 'keyword_rank_recovered':
      add('Keyword', text(f.keyword));
      // "#4 → #4" would read as no change: a recovery names the rank it came back to and the one before the drop.
      if (alert.status === 'resolved') {
        add('Rank', `${rank(rankOrNull(f.after))} (before the drop: ${rank(rankOrNull(f.before))})`);
      } else add('Rank', `${rank(rankOrNull(f.before))} → ${rank(rankOrNull(f.after))}`);
      add('Why', triggerText(f));
      add('Low point', lowPointText(f));
      add('Down', downSpanText(f, 'firedAt', timeZone));
      break;
    case 'bsr_worsened':
    case 'bsr_recovered':
    case 'bsr_removed':
    case 'bsr_restored':
      add('Book', text(f.bookTitle));
      add('Category', text(f.category));
      add('Rank', `${rank(rankOrNull(f.before))} → ${rank(rankOrNull(f.after))}`);
      add('Low point', lowPointText(f));
      if (alert.kind === 'bsr_restored') add('Removed', downSpanText(f, 'removedAt', timeZone));
      else add('Down', downSpanText(f, 'firedAt', timeZone));
      break;
    case 'review_count_down':
      add('Book', text(f.bookTitle));
      add('Reviews', `${count(f.before) ?? '?'} → ${count(f.after) ?? '?'}`);
      add('Average rating', num(f.averageRating)?.toFixed(1));
      break;
    case 'comp_overtook':
    case 'comp_fell_behind':
      add('Book', text(f.bookTitle));
      add('Comp title', text(f.compTitle));
      add('Rank', `${rank(rankOrNull(f.compBsr))} (comp) vs ${rank(rankOrNull(f.bookBsr))} (book)`);
      break;
    case 'sentiment_shift':
    case 'sentiment_recovered':
      add('Book', text(f.bookTitle));
      add(f.measure === 'rating' ? 'Average rating' : 'Net sentiment (points)', sentimentChange(f));
      add('Reviews', count(f.reviewCount));
      break;
    case 'royalty_change':
      add('Royalties', cash(f.royalties, f.currency));
      add('Units', count(f.units));
      add('Day before', cash(f.dayBefore, f.currency));
      add(`${count(f.trailingDaysUsed) ?? '?'}-day average`, cash(f.trailingAverage, f.currency));
      add('Figures', provisional);
      break;
    case 'sales_revision':
      add('Figures', provisional);
      break;
    case 'source_health':
      add('Target', text(f.targetId));
      add('Failed polls', count(f.failures));
      add('Last error', text(f.lastError));
      add('Paused because', text(f.pauseReason));
      add('Paused until', localTime(f.pausedUntil, timeZone));
      break;
    case 'source_recovered':
      if (isSampleAlert(alert)) {
        add('Channel', text(f.channel));
        add('Sent', localTime(alert.observedAt, timeZone));
        break;
      }
      add('Target', text(f.targetId));
      add('Paused because', text(f.pauseReason));
      add('Failed polls', count(f.failedPolls));
      add('Down for', num(f.downForMs) === undefined ? undefined : formatDuration(num(f.downForMs) ?? 0));
      break;
    case 'review_new':
    case 'review_removed':
    case 'review_restored':
      add('Published', localTime(f.publishedAt, timeZone));
      break;
  }
  return rows;
}
