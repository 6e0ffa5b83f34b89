/**
 * Tokens that carry their own authority: a JSON payload and its HMAC-SHA256 under a server secret,
 * both base64url, joined by a dot. Whoever holds one may do what its payload says (a mute link), so
 * the signature is compared in constant time and anything that does not parse is refused as a whole.
 * Expiry and single use are the caller's (the payload says when; Redis remembers what was used).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Below this a secret can be guessed offline from one link; `openssl rand -base64 32` gives 44. */
export const MIN_TOKEN_SECRET = 32;

function mac(secret: string, body: string): Buffer {
  return createHmac('sha256', secret).update(body).digest();
}

export function signToken(payload: Record<string, unknown>, secret: string): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${mac(secret, body).toString('base64url')}`;
}

export type VerifiedToken =
  | { ok: true; payload: Record<string, unknown> }
  | { ok: false; reason: 'malformed' | 'forged' };

export function verifyToken(token: string, secret: string): VerifiedToken {
  const match = /^([A-Za-z0-9_-]{1,4000})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (match === null) return { ok: false, reason: 'malformed' };
  const [, body = '', signature = ''] = match;
  const given = Buffer.from(signature, 'base64url');
  const wanted = mac(secret, body);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted))
    return { ok: false, reason: 'forged' };
  try {
    const payload: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
      return { ok: false, reason: 'malformed' };
    return { ok: true, payload: payload as Record<string, unknown> };
  } catch {
    return { ok: false, reason: 'malformed' };
  }
}
