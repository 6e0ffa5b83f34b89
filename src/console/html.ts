/**
 * Server-rendered HTML with escaping by default: every value put into an `html` template is
 * escaped unless it is already `SafeHtml` (made by `html` itself). Untrusted text (review bodies,
 * titles, keywords) can only reach a page through here, so it is shown as text everywhere.
 */
import { BIDI_OVERRIDES } from '../util/bidi.ts';
import { escapeHtml } from '../util/html.ts';

export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/**
 * Bidirectional overrides and isolates would reorder the text around them on the page: shown as
 * their code point instead, so hostile text reads as it is.
 */
const BIDI = new RegExp(`[${BIDI_OVERRIDES}]`, 'g');

/** Escaped for HTML, bidi overrides and isolates shown as `[U+202E]`. */
function pageText(text: string): string {
  return escapeHtml(text).replace(BIDI, (c) => `[U+${c.codePointAt(0)?.toString(16).toUpperCase()}]`);
}

type Value = SafeHtml | string | number | boolean | null | undefined | readonly Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return pageText(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}

/** Markup a module built and escaped itself (the rank chart's SVG): put into the page as it is. */
export function trustedHtml(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/** JSON for a `<script type="application/json">` island: `<` escaped so no text can close the tag. */
export function jsonIsland(value: unknown): SafeHtml {
  return new SafeHtml(
    JSON.stringify(value)
      .replace(/</g, '\\u003c')
      .replace(/\u2028/g, '\\u2028')
      .replace(/\u2029/g, '\\u2029'),
  );
}

const TIME = new Intl.DateTimeFormat('en-GB', {
  dateStyle: 'medium',
  timeStyle: 'short',
  timeZone: 'UTC',
});

export function timeText(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '—' : `${TIME.format(ms)} UTC`;
}

export function numberText(n: number | null | undefined): string {
  return n === null || n === undefined ? '—' : n.toLocaleString('en-US');
}
