import { inspect } from 'node:util';

const REDACTED = '[redacted]';

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
