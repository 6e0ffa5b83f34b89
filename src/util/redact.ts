/**
 * The one way secrets are taken out of text shelfwatch did not write (an API's error, a library's
 * message, a URL) before it is logged, stored in Redis, alerted or shown. By value: every form of
 * every configured secret (API keys, webhook URLs and the tokens in their paths and queries, SMTP
 * and Redis passwords, bot tokens), as is and percent-encoded; and, as a last line of defence for
 * secrets nobody configured, the `user:password@` of any URL and text shaped like a
 * credential (`Bearer …`, `api_key=…`).
 */

export const REDACTED = '[redacted]';

/** Parts of a secret URL shorter than this are not secrets (`/api`, `v1`). */
const MIN_PART = 8;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Every form of one secret worth looking for, longest first. */
function formsOf(secret: string): string[] {
  const forms = new Set([secret, encodeURIComponent(secret)]);
  try {
    const url = new URL(secret);
    const long = (part: string) => part.length >= MIN_PART;
    // Tokens sit in the path (Slack, Discord, Telegram), the query (Teams' `sig`) or the password.
    forms.add(url.href);
    if (url.pathname.length >= MIN_PART) forms.add(url.pathname);
    for (const part of [
      ...url.pathname.split('/').filter(long),
      ...[...url.searchParams.values()].filter(long),
      url.password,
      url.username.length >= MIN_PART ? url.username : '',
    ])
      if (part !== '') forms.add(part).add(decoded(part));
  } catch {
    // Not a URL (a token, a password): the value alone.
  }
  return [...forms].filter((form) => form.length > 1);
}

/** `scheme://user:password@host` → `scheme://host`. */
const URL_USERINFO = /([a-z][a-z0-9+.-]*:\/\/)[^\s/@]*@/gi;
const BEARER = /(bearer\s+)[^\s"',;]+/gi;
const KEY_VALUE =
  /((?:api[_-]?key|authorization|token|secret|password|passwd)["']?\s*[:=]\s*["']?)[^\s"',;&]+/gi;
const SLACK_HOOK = /(hooks\.slack\.com\/)[^\s"']+/gi;

export interface RedactOptions {
  /**
   * Also mask what is shaped like a credential though nobody configured it (default). Off for
   * data (an API's answer), where `token: …` may be a book's title and only the values must go.
   */
  shapes?: boolean;
}

/** `text` with every form of each of `secrets` and every credential-shaped part replaced. */
export function redact(text: string, secrets: readonly string[] = [], options: RedactOptions = {}): string {
  let out = text;
  const forms = secrets.flatMap(formsOf).sort((a, b) => b.length - a.length);
  for (const form of forms) if (out.includes(form)) out = out.split(form).join(REDACTED);
  if (options.shapes === false) return out;
  return out
    .replace(URL_USERINFO, '$1')
    .replace(BEARER, `$1${REDACTED}`)
    .replace(KEY_VALUE, `$1${REDACTED}`)
    .replace(SLACK_HOOK, `$1${REDACTED}`);
}

/** `redact` over every string inside a value (arrays, plain objects), keys included. */
export function redactDeep<T>(value: T, secrets: readonly string[] = [], options: RedactOptions = {}): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redact(v, secrets, options);
    if (Array.isArray(v)) return v.map(walk);
    const proto = typeof v === 'object' && v !== null ? Object.getPrototypeOf(v) : undefined;
    if (proto === Object.prototype || proto === null)
      return Object.fromEntries(
        Object.entries(v as object).map(([k, x]) => [redact(k, secrets, options), walk(x)]),
      );
    return v;
  };
  return walk(value) as T;
}
