/**
 * Plain-text pieces every channel shows the same way: truncation, one-line summaries, kind labels,
 * fact rows and book links (sparklines: sparkline.ts; reviews: review-view.ts). Pure (no I/O, no clock, no locale data). Everything returned here is
 * plain, unescaped text: each channel escapes for its own markup (Slack mrkdwn, HTML).
 */
import type { Alert, AlertKind, Severity } from '../../model/alert.ts';
import { type FactRow, KINDS, partsOf } from '../../rules/kinds.ts';
import { groupDigits } from '../../util/format.ts';
import { oneLine } from '../../util/one-line.ts';
import type { AlertLinks } from '../notifier.ts';

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

/** Each kind's label, from the kinds' registry (`rules/kinds.ts`). */
export const KIND_LABEL = Object.fromEntries(
  Object.entries(KINDS).map(([kind, parts]) => [kind, parts.label]),
) as Record<AlertKind, string>;

/** What a header calls one alert: the sample of `test-alert` says it is a test, not its borrowed kind. */
export function kindLabel(alert: Alert): string {
  return isSampleAlert(alert) ? 'Test alert' : KIND_LABEL[alert.kind];
}

/** The sample alert `shelfwatch test-alert` sends (see sample-alert.ts). */
export function isSampleAlert(alert: Alert): boolean {
  return alert.ruleId === 'test-alert' && 'test' in alert.facts && alert.facts.test === true;
}

/** One line of plain text (titles may hold untrusted book titles: escape it before use). */
export function alertLine(alert: Alert): string {
  return `${alertMark(alert)} ${oneLine(alert.title)}`;
}

/** A fact that is a non-empty string, else undefined; a finite number, else undefined. */
export { num, text } from '../../rules/kind-parts.ts';

export type { FactRow } from '../../rules/kinds.ts';
export { amazonDomain, bookUrl } from './amazon.ts';

/** Details beyond the title, per kind (the kind's parts), times in `timeZone` and `locale`. Review text is not here: see `reviewOf`. */
export function factRows(alert: Alert, timeZone = 'UTC', locale?: string): FactRow[] {
  return partsOf(alert.kind).rows(alert, timeZone, locale);
}

/**
 * The one mute link a chat message shows under an alert: this book for a day, else this kind; a
 * critical alert's link opens the page that says why it cannot be muted.
 */
export function muteLinkOf(links: AlertLinks | undefined): { label: string; url: string } | undefined {
  if (links === undefined) return undefined;
  if (links.critical) return { label: 'Why this cannot be muted', url: links.muteKind };
  if (links.muteBook !== undefined) return { label: 'Mute this book for a day', url: links.muteBook };
  return { label: 'Mute alerts like this', url: links.muteKind };
}
