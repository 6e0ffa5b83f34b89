/**
 * Small field schemas the config is built from. Every message reads "expected …"; the problem
 * mapper (problems.ts) appends what was found, so a message never has to repeat the value.
 */
import { z } from 'zod';
import { MARKETPLACES } from '../api/index.ts';
import { isTimeZone } from '../util/zoned-time.ts';
import { Secret } from './secret.ts';

const WHOLE_NUMBER_TEXT = /^\s*\d+\s*$/;
const DECIMAL_TEXT = /^\s*\d+(\.\d+)?\s*$/;

/**
 * A whole number in a range. The text form ("9464") is accepted too, because `${PORT}` always
 * interpolates to a string and a config that reads its port from the environment is common.
 */
export function intField(min: number, max: number) {
  return numberOrText(
    z.int().min(min).max(max),
    WHOLE_NUMBER_TEXT,
    `expected a whole number from ${min} to ${max}`,
  );
}

/** A decimal number in a range; text is accepted for the same reason as in `intField`. */
export function numberField(min: number, max: number) {
  return numberOrText(z.number().min(min).max(max), DECIMAL_TEXT, `expected a number from ${min} to ${max}`);
}

/** `number`, or text that `text` accepts, read as a number and checked by `number` again. */
function numberOrText(number: z.ZodNumber, text: RegExp, expected: string) {
  return z
    .union([number, z.string().regex(text, { message: expected, abort: true })], { error: expected })
    .transform((value) => (typeof value === 'number' ? value : Number(value.trim())))
    .pipe(number);
}

/** `true` / `false`, or their text forms so `${FLAG:-false}` works. */
export function boolField() {
  return z
    .union([z.boolean(), z.enum(['true', 'false'])], { error: 'expected true or false' })
    .transform((value) => value === true || value === 'true');
}

/** Ids of workspaces and channels: they end up in Redis keys, job ids and log lines. */
export function idField(what: string) {
  return z
    .string()
    .max(64, `expected ${what} id of at most 64 characters`)
    .regex(/^[a-z0-9-]+$/, `expected ${what} id of lowercase letters, digits and "-", such as "acme"`);
}

export const marketplaceField = z.enum(MARKETPLACES);

/** A list whose items must differ (a repeated item is almost always a copy-paste slip). */
export function uniqueList<T extends z.ZodType>(item: T, what: string) {
  return z.array(item).superRefine((items, ctx) => {
    const seen = new Set<string>();
    items.forEach((entry, index) => {
      const key = JSON.stringify(entry);
      if (seen.has(key)) {
        ctx.addIssue({ code: 'custom', path: [index], message: `${what} ${key} is listed twice` });
      }
      seen.add(key);
    });
  });
}

export const timeZoneField = z.string().refine(isTimeZone, {
  message: 'expected an IANA time zone such as "Europe/Berlin", "America/New_York" or "UTC"',
});

function isLocale(tag: string): boolean {
  try {
    // A well-formed tag Intl has data for: "de-DE" yes, "xx-QQ" (well-formed, no data) no.
    return (
      Intl.getCanonicalLocales(tag).length === 1 && Intl.NumberFormat.supportedLocalesOf(tag).length === 1
    );
  } catch {
    return false;
  }
}

/** A BCP 47 locale for numbers and dates (`Intl`), such as "de-DE" or "en-US". */
export const localeField = z.string().trim().refine(isLocale, {
  message: 'expected a locale such as "en-US", "en-GB" or "de-DE"',
});

export const emailField = z.email({ error: 'expected an email address such as alerts@example.com' });

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** Checks a URL's scheme; the message never repeats the URL, which may hold a token or password. */
function urlCheck(schemes: readonly string[], example: string) {
  const expected = `expected a URL starting with ${schemes.map((scheme) => `${scheme}://`).join(' or ')}, such as ${example}`;
  return (text: string, ctx: z.RefinementCtx<string>) => {
    const url = parseUrl(text);
    if (url === undefined) {
      ctx.addIssue({ code: 'custom', message: `${expected}, got text that is not a URL`, continue: false });
    } else if (!schemes.includes(url.protocol.replace(/:$/, ''))) {
      ctx.addIssue({
        code: 'custom',
        message: `${expected}, got a URL starting with "${url.protocol}//"`,
        continue: false,
      });
    }
  };
}

/** A plain (non-secret) URL, trailing slashes removed so callers can append paths. */
export function urlField(schemes: readonly string[], example: string) {
  return z
    .string()
    .superRefine(urlCheck(schemes, example))
    .transform((text) => text.trim().replace(/\/+$/, ''));
}

export const secretField = z
  .string()
  .min(1, 'expected a non-empty secret')
  .transform((text) => new Secret(text));

/** A URL that carries a credential (a webhook token, an SMTP password): checked, then wrapped. */
export function secretUrlField(schemes: readonly string[], example: string) {
  return z
    .string()
    .superRefine(urlCheck(schemes, example))
    .transform((text) => new Secret(text.trim()));
}

/** "HH:MM", 24-hour clock. */
export const clockTimeField = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'expected a time of day "HH:MM" (24-hour), such as "08:00"');
