/**
 * Access to the console: one token, a signed session cookie (HttpOnly, SameSite=Strict), a CSRF
 * token per session for every write, and the Host header checked against the bind address (a
 * DNS-rebinding page cannot talk to a loopback console under another name).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { isLoopback } from '../config/console.ts';

export const SESSION_COOKIE = 'shelfwatch_session';
const SESSION_MS = 12 * 3_600_000;

function hmac(key: Buffer, text: string): string {
  return createHmac('sha256', key).update(text).digest('base64url');
}

/** Constant-time comparison of two strings (their hashes, so lengths leak nothing either). */
export function sameSecret(given: string, expected: string): boolean {
  const key = Buffer.from('shelfwatch-compare');
  return timingSafeEqual(Buffer.from(hmac(key, given)), Buffer.from(hmac(key, expected)));
}

export function generateToken(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * Sessions are stateless: `<expiry>.<nonce>.<mac>`, signed with a key made per process, so a
 * restart logs everyone out and nothing about sessions is stored anywhere.
 */
export class ConsoleAuth {
  private readonly key = randomBytes(32);

  constructor(
    private readonly token: string,
    private readonly now: () => number = Date.now,
  ) {}

  checkToken(given: string): boolean {
    return given.length > 0 && sameSecret(given, this.token);
  }

  newSession(): { value: string; maxAgeS: number } {
    const body = `${this.now() + SESSION_MS}.${randomBytes(12).toString('base64url')}`;
    return { value: `${body}.${hmac(this.key, body)}`, maxAgeS: SESSION_MS / 1_000 };
  }

  /** The session if the cookie is ours and not expired. */
  session(cookie: string | undefined): string | undefined {
    if (cookie === undefined) return undefined;
    const cut = cookie.lastIndexOf('.');
    if (cut < 0) return undefined;
    const body = cookie.slice(0, cut);
    if (!sameSecret(cookie.slice(cut + 1), hmac(this.key, body))) return undefined;
    const expires = Number(body.slice(0, body.indexOf('.')));
    return Number.isFinite(expires) && expires > this.now() ? cookie : undefined;
  }

  csrfToken(session: string): string {
    return hmac(this.key, `csrf:${session}`);
  }

  checkCsrf(session: string, given: unknown): boolean {
    return typeof given === 'string' && given.length > 0 && sameSecret(given, this.csrfToken(session));
  }
}

/** Host headers the console answers to: its bind address, and the loopback names when bound there. */
export function allowedHosts(host: string, port: number): Set<string> {
  const names = new Set([host]);
  if (isLoopback(host)) for (const name of ['127.0.0.1', 'localhost', '[::1]']) names.add(name);
  if (host.includes(':') && !host.startsWith('[')) names.add(`[${host}]`);
  return new Set([...names].map((name) => `${name}:${port}`.toLowerCase()));
}
