/**
 * The one HTML builder and its escaper: alert emails, the digest and the console put untrusted text
 * into HTML through here. Values put into an `html` template are escaped unless they are already
 * `SafeHtml` (made by a template, or marked with `trustedHtml` by code that built the markup itself).
 */

const HTML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text made safe for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ENTITIES[c] ?? c);
}

/** Markup that is safe as it is: what a template built, or what `trustedHtml` vouches for. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

export type HtmlTemplate = (strings: TemplateStringsArray, ...values: HtmlValue[]) => SafeHtml;

/**
 * A template tag that escapes interpolated text with `escapeText` (the console also shows bidi
 * controls as code points); `null`, `undefined` and `false` render nothing, arrays are joined.
 */
export function htmlWith(escapeText: (text: string) => string): HtmlTemplate {
  const render = (value: HtmlValue): string => {
    if (value === null || value === undefined || value === false) return '';
    if (value instanceof SafeHtml) return value.value;
    if (Array.isArray(value)) return value.map(render).join('');
    return escapeText(String(value));
  };
  return (strings, ...values) => {
    let out = strings[0] ?? '';
    values.forEach((value, i) => {
      out += render(value) + (strings[i + 1] ?? '');
    });
    return new SafeHtml(out);
  };
}

/** HTML with every interpolated value escaped (emails, the digest). */
export const html: HtmlTemplate = htmlWith(escapeHtml);

/** Markup a module built and escaped itself (a chart's SVG): put in as it is. */
export function trustedHtml(markup: string): SafeHtml {
  return new SafeHtml(markup);
}
