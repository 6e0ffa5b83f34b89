import { inspect } from 'node:util';
import { REDACTED } from '../util/redact.ts';

/**
 * A configured secret (API key, webhook URL, SMTP URL). Every way a value usually leaks — a log
 * line, `JSON.stringify`, `console.log`, a template string — prints `[redacted]`; only an explicit
 * `reveal()` at the point of use gives the text. The value lives in a private field so no
 * enumeration (`Object.entries`, structured logging of the object) can reach it either.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [Symbol.toPrimitive](): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}

/**
 * Every secret a checked config holds (API keys, webhook URLs, SMTP URLs, bot tokens, the console
 * token, a password in the Redis URL), revealed: for `redact`, which takes them out of text that
 * leaves the process. Walks the whole config, so a secret field added later is covered too.
 */
export function secretsIn(config: unknown): string[] {
  const found = new Set<string>();
  const seen = new Set<object>();
  const walk = (value: unknown): void => {
    if (value instanceof Secret) {
      found.add(value.reveal());
    } else if (typeof value === 'string' && /^rediss?:\/\//.test(value)) {
      const password = passwordOf(value);
      if (password !== undefined) found.add(password);
    } else if (typeof value === 'object' && value !== null && !seen.has(value)) {
      seen.add(value);
      for (const inner of value instanceof Map ? value.values() : Object.values(value)) walk(inner);
    }
  };
  walk(config);
  return [...found].filter((secret) => secret !== '');
}

function passwordOf(url: string): string | undefined {
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password === '' ? undefined : password;
  } catch {
    return undefined;
  }
}
