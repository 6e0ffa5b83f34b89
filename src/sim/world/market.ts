/** Marketplaces of the contract with their currencies, as the simulator prices books. */

import type { Marketplace } from '../../util/marketplaces.ts';

export { isMarketplace, MARKETPLACES, type Marketplace } from '../../util/marketplaces.ts';

interface Currency {
  code: string;
  /** Units of this currency per US dollar: a rough, fixed rate; only plausibility matters. */
  perUsd: number;
  decimals: 0 | 2;
  /** Relative size of the market, which scales sales and search volume. */
  size: number;
}

const CURRENCIES: Record<Marketplace, Currency> = {
  US: { code: 'USD', perUsd: 1, decimals: 2, size: 1 },
  UK: { code: 'GBP', perUsd: 0.79, decimals: 2, size: 0.35 },
  DE: { code: 'EUR', perUsd: 0.92, decimals: 2, size: 0.3 },
  FR: { code: 'EUR', perUsd: 0.92, decimals: 2, size: 0.12 },
  ES: { code: 'EUR', perUsd: 0.92, decimals: 2, size: 0.08 },
  IT: { code: 'EUR', perUsd: 0.92, decimals: 2, size: 0.08 },
  NL: { code: 'EUR', perUsd: 0.92, decimals: 2, size: 0.04 },
  JP: { code: 'JPY', perUsd: 150, decimals: 0, size: 0.1 },
  IN: { code: 'INR', perUsd: 83, decimals: 2, size: 0.06 },
  CA: { code: 'CAD', perUsd: 1.36, decimals: 2, size: 0.15 },
  BR: { code: 'BRL', perUsd: 5, decimals: 2, size: 0.05 },
  MX: { code: 'MXN', perUsd: 17, decimals: 2, size: 0.04 },
  AU: { code: 'AUD', perUsd: 1.5, decimals: 2, size: 0.12 },
};

export function currencyOf(marketplace: Marketplace): Currency {
  return CURRENCIES[marketplace];
}

/** Minor units (cents; yen for JPY) to the contract's money object with a decimal string. */
export function money(minor: number, marketplace: Marketplace): { amount: string; currency: string } {
  const currency = CURRENCIES[marketplace];
  const whole = Math.max(0, Math.round(minor));
  if (currency.decimals === 0) return { amount: String(whole), currency: currency.code };
  const cents = String(whole % 100).padStart(2, '0');
  return { amount: `${Math.floor(whole / 100)}.${cents}`, currency: currency.code };
}

/** A decimal amount string ("12.34"; "1234" for JPY) to minor units, or undefined if malformed. */
export function parseAmount(text: string, marketplace: Marketplace): number | undefined {
  const decimals = CURRENCIES[marketplace].decimals;
  const re = decimals === 0 ? /^\d{1,12}$/ : /^\d{1,12}(\.\d{1,2})?$/;
  if (!re.test(text)) return undefined;
  const [whole = '0', fraction = ''] = text.split('.');
  return Number(whole) * 10 ** decimals + Number(fraction.padEnd(decimals, '0') || '0');
}
