/**
 * Server-rendered HTML with escaping by default, on the one builder (`util/html.ts`): every value
 * put into an `html` template is escaped unless it is already `SafeHtml`. Untrusted text (review bodies,
 * titles, keywords) can only reach a page through here, so it is shown as text everywhere.
 */
import { BIDI_OVERRIDES } from '../util/bidi.ts';
import { escapeHtml, type HtmlTemplate, htmlWith, SafeHtml } from '../util/html.ts';
import { formatterPerZone } from '../util/zoned-time.ts';
import { viewerZone } from './viewer-zone.ts';

export { SafeHtml, trustedHtml } from '../util/html.ts';

/**
 * Bidirectional overrides and isolates would reorder the text around them on the page: shown as
 * their code point instead, so hostile text reads as it is.
 */
const BIDI = new RegExp(`[${BIDI_OVERRIDES}]`, 'g');

/** Escaped for HTML, bidi overrides and isolates shown as `[U+202E]`. */
function pageText(text: string): string {
  return escapeHtml(text).replace(BIDI, (c) => `[U+${c.codePointAt(0)?.toString(16).toUpperCase()}]`);
}

/** Page HTML: every interpolated value escaped, bidi controls shown as code points. */
export const html: HtmlTemplate = htmlWith(pageText);

/** JSON for a `<script type="application/json">` island: `<` escaped so no text can close the tag. */
export function jsonIsland(value: unknown): SafeHtml {
  return new SafeHtml(
    JSON.stringify(value)
      .replace(/</g, '\\u003c')
      .replace(/\u2028/g, '\\u2028')
      .replace(/\u2029/g, '\\u2029'),
  );
}

const TIME = formatterPerZone('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
  timeZoneName: 'short',
});

/** `28 Nov 2026, 19:22 CET`: in the viewer's zone (viewer-zone.ts), its name always shown. */
export function timeText(ms: number | null | undefined, timeZone: string = viewerZone()): string {
  return ms === null || ms === undefined ? '—' : TIME(timeZone).format(ms);
}

export function numberText(n: number | null | undefined): string {
  return n === null || n === undefined ? '—' : n.toLocaleString('en-US');
}
