import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const COMPARE_KEY = randomBytes(32);
const digest = (text: string) => createHmac('sha256', COMPARE_KEY).update(text).digest();

/** Constant-time comparison of two strings (of their MACs, so lengths leak nothing either). */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

export function generateToken(): string {
  return randomBytes(24).toString('base64url');
}
