/**
 * Server-rendered HTML with escaping by default: every value put into an `html` template is
 * escaped unless it is already `SafeHtml` (made by `html` itself). Untrusted text (review bodies,
 * titles, keywords) can only reach a page through here, so it is shown as text everywhere.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * Bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069) would reorder the text
 * around them on the page: shown as their code point instead, so hostile text reads as it is.
 */
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g;

export function escapeHtml(text: string): string {
  return text
    .replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c)
    .replace(BIDI, (c) => `[U+${c.codePointAt(0)?.toString(16).toUpperCase()}]`);
}

type Value = SafeHtml | string | number | boolean | null | undefined | readonly Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
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
