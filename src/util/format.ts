/**
 * Plain-text formatting of numbers, money and ranks: alert titles, messages, the digest and the CLI.
 * Deterministic (no locale data), so output is stable.
 */
import { minorDigits } from './money.ts';

export function groupDigits(n: number): string {
  const digits = Math.abs(Math.trunc(n)).toString();
  let out = '';
  for (let end = digits.length; end > 0; end -= 3) {
    const part = digits.slice(Math.max(0, end - 3), end);
    out = out === '' ? part : `${part},${out}`;
  }
  return n < 0 && out !== '0' ? `-${out}` : out;
}

export function rank(n: number | null): string {
  return n === null ? 'unranked' : `#${groupDigits(n)}`;
}

/** `8712, 'USD'` → `87.12`; integer arithmetic, no float rounding. */
export function amount(minor: number, currency: string): string {
  const digits = minorDigits(currency);
  const abs = Math.abs(Math.round(minor));
  const sign = minor < 0 ? '-' : '';
  if (digits === 0) return `${sign}${groupDigits(abs)}`;
  const scale = 10 ** digits;
  const frac = (abs % scale).toString().padStart(digits, '0');
  return `${sign}${groupDigits(Math.floor(abs / scale))}.${frac}`;
}

/** `8712, 'USD'` → `87.12 USD`. */
export function money(minor: number, currency: string): string {
  return `${amount(minor, currency)} ${currency}`;
}

export function signedMoney(minor: number, currency: string): string {
  return minor > 0 ? `+${money(minor, currency)}` : money(minor, currency);
}

/** Whole percent for titles; facts keep the unrounded number. */
export function percent(p: number): string {
  return `${Math.round(Math.abs(p))}%`;
}

export function quote(text: string): string {
  return `“${text}”`;
}

export function where(asin: string, marketplace: string | null): string {
  return marketplace === null ? `(${asin})` : `(${asin}, ${marketplace})`;
}

/** `4` → `★★★★☆`: a 1–5 rating rounded to whole stars, clamped. */
export function stars(rating: number): string {
  const full = Math.max(0, Math.min(5, Math.round(rating)));
  return '★'.repeat(full) + '☆'.repeat(5 - full);
}
