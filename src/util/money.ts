// Digits of a currency's minor unit (ISO 4217), 2 unless listed. One list for reading amounts, the
// contract's money formats and printing: three lists once read CLP with two decimals and printed it
// with none, 100 times too large.
const MINOR_DIGITS: Readonly<Record<string, number>> = {
  JPY: 0,
  KRW: 0,
  CLP: 0,
  VND: 0,
  ISK: 0,
  BHD: 3,
  KWD: 3,
};

export function minorDigits(currency: string): number {
  return MINOR_DIGITS[currency] ?? 2;
}

/**
 * "87.12" USD → 8712. Works on the decimal string, never through a float, so 0.1 + 0.2 troubles
 * cannot creep into royalties. Extra precision beyond the currency's minor unit is rounded half up.
 */
export function toMinor(amount: string, currency: string): number {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (match === null) throw new RangeError(`not a decimal amount: "${amount}"`);
  const [, sign, whole = '0', fraction = ''] = match;
  const digits = minorDigits(currency);
  const kept = fraction.padEnd(digits, '0').slice(0, digits);
  const roundUp = (fraction[digits] ?? '0') >= '5' ? 1 : 0;
  const value = Number(whole) * 10 ** digits + Number(kept === '' ? '0' : kept) + roundUp;
  // Past 2^53 integer arithmetic is no longer exact: such an amount is a broken answer, not money.
  if (!Number.isSafeInteger(value)) throw new RangeError(`amount out of range: "${amount.slice(0, 40)}"`);
  return sign === '-' ? -value : value;
}

/** 8712 USD → "87.12". */
export function formatMinor(minor: number, currency: string): string {
  const digits = minorDigits(currency);
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  if (digits === 0) return `${sign}${abs}`;
  const scale = 10 ** digits;
  return `${sign}${Math.floor(abs / scale)}.${String(abs % scale).padStart(digits, '0')}`;
}
