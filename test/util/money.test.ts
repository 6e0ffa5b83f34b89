import { describe, expect, it } from 'vitest';
import { amount } from '../../src/util/format.ts';
import { formatMinor, minorDigits, toMinor } from '../../src/util/money.ts';

describe('money: one minor unit for reading and printing', () => {
  it.each([
    ['USD', '87.12', '87.12'],
    ['JPY', '1500', '1,500'],
    ['CLP', '25000', '25,000'],
    ['HUF', '1234.50', '1,234.50'],
    ['BHD', '1.250', '1.250'],
  ])('%s %s is printed as %s', (currency, given, printed) => {
    expect(amount(toMinor(given, currency), currency)).toBe(printed);
  });

  it('reads a zero-decimal amount without scaling it', () => {
    expect(minorDigits('CLP')).toBe(0);
    expect(toMinor('25000', 'CLP')).toBe(25_000);
    expect(formatMinor(25_000, 'CLP')).toBe('25000');
  });
});
