/**
 * Review text from the public, written to hurt: Slack mentions and links, HTML and script, header
 * injection through line breaks, bidi overrides, NUL, a forged alert block, and bodies long enough
 * to be cut. The suite checks what reached Slack and the mailbox after rendering.
 */
export const HOSTILE_REVIEWS = {
  markup: {
    platform: 'amazon',
    rating: 5,
    title: '<!channel> URGENT & <script>alert(1)</script>',
    body: [
      '<!here> <@U012ABCDEF> <#C0123|general> click <https://evil.example/login|your dashboard>',
      '*bold* _it_ ~strike~ `code` & &amp; &lt;b&gt; <img src=x onerror=alert(1)> javascript:alert(1)',
      '\u202Edesrever\u202C zero\u200Bwidth nul\u0000byte',
      'lorem ipsum '.repeat(700),
    ].join('\n'),
    reviewer: 'Mallory <mallory@evil.example>',
  },
  forged: {
    platform: 'goodreads',
    rating: 1,
    title: 'Fine\r\nBcc: victim@evil.example\r\nX-Injected: yes',
    // An alert block as the plain-text email prints one: a reader cannot tell it from a real alert.
    body: [
      'Solid read.',
      '',
      '[CRITICAL] Amazon removed the best-seller rank of “Forged Book” (was #1) (B0FORGED00, US)',
      '  ASIN: B0FORGED00 (US)',
      '',
      ':rotating_light: *Amazon removed the best-seller rank* <!channel>',
    ].join('\n'),
    reviewer: '<!subteam^S0123|@launch-team>',
  },
  long: {
    platform: 'audible',
    rating: 3,
    title: null,
    body: `${'مراجعة طويلة جدا 📚🔥 e\u0301 '.repeat(900)}<end>`,
    reviewer: 'Audible Fan',
  },
} as const;

const OWN_LINK = /^https:\/\/www\.amazon\.com\/dp\/[A-Z0-9]{10}\|Book on amazon\.com$/;

/** Every `<…>` token Slack would act on (mentions, links) that is not one of our own product links. */
export function slackControlTokens(payload: unknown): string[] {
  const texts: string[] = [];
  const walk = (value: unknown, key: string): void => {
    if (typeof value === 'string') {
      if (key === 'text') texts.push(value);
    } else if (Array.isArray(value)) {
      for (const item of value) walk(item, key);
    } else if (typeof value === 'object' && value !== null) {
      for (const [k, v] of Object.entries(value)) walk(v, k);
    }
  };
  walk(payload, '');
  return texts
    .flatMap((text) => [...text.matchAll(/<([^>]*)>/g)].map((m) => m[1] ?? ''))
    .filter((token) => !OWN_LINK.test(token));
}

/** Active HTML, or headers the review text managed to add, in one captured email. */
export function emailInjections(mail: {
  html: string | false;
  subject?: string | undefined;
  headers: Map<string, unknown>;
}): string[] {
  const found: string[] = [];
  const html = mail.html === false ? '' : mail.html;
  for (const pattern of [/<script/i, /<[^>]*\son\w+=/i, /<img\b/i, /href="javascript:/i]) {
    if (pattern.test(html)) found.push(`html matches ${pattern}`);
  }
  for (const header of ['bcc', 'x-injected']) if (mail.headers.has(header)) found.push(`header ${header}`);
  if (/[\r\n]/.test(mail.subject ?? '')) found.push('line break in subject');
  return found;
}
