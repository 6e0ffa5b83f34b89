/**
 * Money fields compiled: an amount in one of the money formats, and a currency that is a member of the
 * answer, one fixed code, or the currency of the row's marketplace (Keepa sends integer cents of the
 * marketplace's own currency and no currency member). `noFigure` lists the amounts that mean "no
 * figure" (-1, null, absent): they read as null, never as 0, so the engine can leave the day out.
 */
import { MARKETPLACE_CURRENCY } from '../schemas.ts';
import { describeFound, FAIL, readAmount, type UnrankedValue, unrankedOut, writeAmount } from './formats.ts';
import { compileGetter, compileSetter, joinPath } from './path.ts';
import type { FieldSpecObject } from './schema.ts';

type Getter = (container: unknown) => unknown;

export interface MoneyNode {
  amountPath: string;
  /** Undefined when the answer has no currency member (fixed, or from the marketplace). */
  currencyPath: string | undefined;
  /** `{ amount, currency }`, null ("no figure", only where `noFigure` says so) or FAIL. */
  read(container: unknown): unknown;
  write(value: unknown, target: Record<string, unknown>): void;
  /** Where a failed read went wrong (below the field's path) and what was there. */
  explain(container: unknown): { path: string; found: string };
}

/** "no figure" values: numbers are also matched when the amount is sent as text ("-1"). */
function noFigureTest(values: readonly UnrankedValue[]): { is: (v: unknown) => boolean; missing: boolean } {
  const none = new Set<unknown>(values.filter((v) => v !== 'missing'));
  return {
    is: (v) => none.has(v) || (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) && none.has(Number(v))),
    missing: values.includes('missing'),
  };
}

/**
 * `get` reads the field's base (its path and alsoAt); `marketplaceOf` reads the canonical
 * marketplace of the same object, for `currency: { fromMarketplace: true }`.
 */
export function compileMoney(
  spec: FieldSpecObject,
  get: Getter,
  marketplaceOf: Getter | undefined,
): MoneyNode {
  const format = spec.format ?? 'decimal_string';
  const member = typeof spec.currency === 'string' || spec.currency === undefined;
  const currencyPath = member ? ((spec.currency as string | undefined) ?? 'currency') : undefined;
  // With no currency member the value at path is the amount itself.
  const amountPath = spec.amount ?? (member ? 'amount' : '');
  const amountOf = compileGetter(amountPath);
  const currencyMember = currencyPath === undefined ? undefined : compileGetter(currencyPath);
  const fixed =
    typeof spec.currency === 'object' && 'fixed' in spec.currency ? spec.currency.fixed : undefined;
  const currencyOf = (base: unknown, container: unknown): unknown => {
    if (currencyMember !== undefined) return currencyMember(base);
    if (fixed !== undefined) return fixed;
    const mp = marketplaceOf?.(container);
    return typeof mp === 'string' ? MARKETPLACE_CURRENCY[mp as keyof typeof MARKETPLACE_CURRENCY] : undefined;
  };
  const noFigure = spec.noFigure === undefined ? undefined : noFigureTest(spec.noFigure);
  const noFigureOut = spec.noFigure === undefined ? undefined : unrankedOut(spec.noFigure);
  const amountIn = readAmount(format);
  const amountOut = writeAmount(format);
  const setAmount = compileSetter(joinPath(spec.path, amountPath));
  const setCurrency =
    currencyPath === undefined ? undefined : compileSetter(joinPath(spec.path, currencyPath));

  return {
    amountPath,
    currencyPath,
    read(container) {
      const base = get(container);
      if (noFigure !== undefined) {
        // `royalties: null` says it for the whole money object as well as `royalties.amount: null`.
        const raw = base === undefined || base === null ? base : amountOf(base);
        if (raw === undefined ? noFigure.missing : noFigure.is(raw)) return null;
      }
      const currency = currencyOf(base, container);
      if (typeof currency !== 'string') return FAIL;
      const amount = amountIn(amountOf(base), currency);
      return amount === FAIL ? FAIL : { amount, currency };
    },
    write(value, target) {
      if (value === null) {
        if (noFigureOut !== undefined) setAmount(target, noFigureOut);
        return;
      }
      const money = value as { amount: string; currency: string };
      setAmount(target, amountOut(money.amount, money.currency));
      setCurrency?.(target, money.currency);
    },
    explain(container) {
      const base = get(container);
      const currency = currencyOf(base, container);
      if (typeof currency !== 'string' && currencyPath !== undefined)
        return { path: currencyPath, found: describeFound(compileGetter(currencyPath)(base)) };
      if (typeof currency !== 'string') {
        const mp = marketplaceOf?.(container);
        const which = typeof mp === 'string' ? `"${mp}"` : 'not read';
        return { path: amountPath, found: `no currency for the row's marketplace (${which})` };
      }
      return { path: amountPath, found: describeFound(amountOf(base)) };
    },
  };
}
