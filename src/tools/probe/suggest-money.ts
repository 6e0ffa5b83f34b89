/**
 * Money in probe's suggestion: where the amount is and its scale (minor units or a major number),
 * where its currency comes from (a member beside it; else the row's marketplace; else one fixed code,
 * only with evidence, said), and the amounts that mean "no figure" (`noFigure`) from the rows seen.
 * Each choice made without a member that says it goes to the notes with its evidence. Pure.
 */
import { type FieldSpecObject, joinPath, MARKETPLACE_CURRENCY } from '../../api/tooling.ts';
import { type RecordedAnswer, valueAt } from './probe-analyse.ts';

/** What a row with no currency member can take its currency from. */
export interface MoneyHints {
  /** The row carries its marketplace (the suggestion reads it): `fromMarketplace`. */
  rowMarketplace: boolean;
  /** A currency code the answer states once, outside its rows (`meta.currency: "EUR"`). */
  bodyCurrency?: { code: string; path: string };
  /** The marketplace probe asked the rows for (`marketplace=US`). */
  asked?: string;
}

export type NoFigure = null | number | 'missing';

const CURRENCIES = new Set<string>(Intl.supportedValuesOf('currency'));
const keysOf = (o: unknown) =>
  typeof o === 'object' && o !== null && !Array.isArray(o) ? Object.keys(o) : [];
const currencyKey = (o: unknown) => keysOf(o).find((k) => /currency/i.test(k));
/** Keepa's "no data" (-1) and its kin (-2): amounts no sale or spend makes, unlike a refund's -345. */
const SENTINELS = new Set([-1, -2]);

/**
 * The hints of one answer's rows: a marketplace member in the row (the contract's or one named like
 * it), a currency the answer states outside its rows, the marketplace probe asked for (US).
 */
export function moneyHints(answer: RecordedAnswer, row: unknown, marketplacePath: string): MoneyHints {
  const rowMarketplace =
    valueAt(row, marketplacePath) !== undefined ||
    keysOf(row).some((k) => /market|domain|locale|site|region/i.test(k));
  const bodyCurrency = currencyInBody(answer.body);
  const asked = answer.params?.some((p) => p.param === 'marketplace') === true ? 'US' : undefined;
  return {
    rowMarketplace,
    ...(bodyCurrency === undefined ? {} : { bodyCurrency }),
    ...(asked === undefined ? {} : { asked }),
  };
}

/** A currency code stated once in the answer outside lists (`meta.currency`), for `{ fixed }`. */
export function currencyInBody(body: unknown): MoneyHints['bodyCurrency'] {
  const visit = (value: unknown, prefix: string, depth: number): MoneyHints['bodyCurrency'] => {
    for (const key of keysOf(value)) {
      const child = (value as Record<string, unknown>)[key];
      const path = joinPath(prefix, key);
      if (/currency/i.test(key) && typeof child === 'string' && CURRENCIES.has(child))
        return { code: child, path };
      const inner = depth > 1 ? visit(child, path, depth - 1) : undefined;
      if (inner !== undefined) return inner;
    }
    return undefined;
  };
  return visit(body, '', 3);
}

/** The raw amount of each row: what `noFigure` is matched against (undefined: the member is absent). */
function amountsOf(path: string, amount: string, rows: readonly unknown[]): unknown[] {
  return rows.map((row) => {
    const base = path === '' ? row : valueAt(row, path);
    return base === null || base === undefined || amount === '' ? base : valueAt(base, amount);
  });
}

const isWhole = (v: unknown) =>
  (typeof v === 'number' && Number.isInteger(v)) || (typeof v === 'string' && /^-?\d+$/.test(v));

/**
 * The amounts that mean "no figure" among the rows, with the evidence: -1 or -2 (as numbers or text),
 * null (the amount or the whole money object), and an absent member where other rows have it.
 */
export function noFigureSeen(
  spec: FieldSpecObject,
  rows: readonly unknown[],
): { values: NoFigure[]; evidence: string; refunds: number[] } | undefined {
  const member = typeof spec.currency === 'string' || spec.currency === undefined;
  const amounts = amountsOf(spec.path, spec.amount ?? (member ? 'amount' : ''), rows);
  const counts = new Map<NoFigure, number>();
  const refunds: number[] = [];
  const present = amounts.some((v) => v !== undefined && v !== null);
  for (const v of amounts) {
    const n = typeof v === 'string' && /^-\d+$/.test(v) ? Number(v) : v;
    const hit: NoFigure | undefined =
      v === null
        ? null
        : v === undefined
          ? present
            ? 'missing'
            : undefined
          : typeof n === 'number' && SENTINELS.has(n)
            ? n
            : undefined;
    if (hit !== undefined) counts.set(hit, (counts.get(hit) ?? 0) + 1);
    else if (typeof n === 'number' && n < 0) refunds.push(n);
  }
  if (counts.size === 0) return undefined;
  const order = (x: NoFigure) => (x === null ? -10 : x === 'missing' ? 10 : -x);
  const values = [...counts.keys()].sort((a, b) => order(a) - order(b));
  const evidence = values
    .map(
      (x) =>
        `${counts.get(x)} of ${rows.length} rows ${x === 'missing' ? 'without it' : `with ${JSON.stringify(x)}`}`,
    )
    .join(', ');
  return { values, evidence, refunds };
}

/** `noFigure` from the rows, said with its evidence; the user's own list is kept when none is seen. */
export function noFigureFor(
  spec: FieldSpecObject,
  rows: readonly unknown[],
  where: string,
  notes: string[],
): NoFigure[] | undefined {
  const seen = noFigureSeen(spec, rows);
  if (seen === undefined) return spec.noFigure;
  const refunds =
    seen.refunds.length === 0
      ? ''
      : `; other negative amounts (${[...new Set(seen.refunds)].slice(0, 3).join(', ')}) are read as amounts (refunds)`;
  notes.push(
    `${where}: ${seen.evidence}: offered as noFigure ${JSON.stringify(seen.values)} (a day with no figure is left out until it comes, never read as 0)${refunds}; check it in the API document`,
  );
  return seen.values;
}

/**
 * Minor units or a major number, from the member's name and the values of every row. Beside a
 * currency member only the name says minor units (as before); with none, whole numbers only are
 * taken for minor units, as Keepa sends them, and said.
 */
function scaleOf(
  name: string,
  values: readonly unknown[],
  member: boolean,
  where: string,
  notes: string[],
): 'decimal_string' | 'minor_units' | 'major_number' {
  const amounts = values.filter((v) => v !== null && v !== undefined && !SENTINELS.has(Number(v)));
  if (typeof amounts[0] === 'string') return 'decimal_string';
  if (/minor|cents/i.test(name)) return 'minor_units';
  if (amounts.length === 0 && values.length > 0 && !member) {
    // Every row said "no figure" (a report not in yet): nothing shows minor or major units.
    notes.push(
      `${where}: no amount in the answers, only "no figure" values: its scale cannot be seen (major_number kept): check it in the API document, or probe again when figures are in`,
    );
    return 'major_number';
  }
  if (member || amounts.length === 0 || !amounts.every(isWhole)) return 'major_number';
  notes.push(
    `${where}: ${amounts.length} amounts, all whole numbers (e.g. ${String(amounts.find((v) => Number(v) !== 0) ?? amounts[0])}): read as minor units (cents), as Keepa sends them; if they are whole units of the currency, format: major_number`,
  );
  return 'minor_units';
}

/** The currency of rows with no currency member: the row's marketplace, else a fixed code with evidence. */
function currencySource(hints: MoneyHints, where: string, notes: string[]): FieldSpecObject['currency'] {
  if (hints.rowMarketplace) {
    notes.push(
      `${where}: no currency member: the currency of each row's marketplace (currency: { fromMarketplace: true }: US USD, UK GBP, DE EUR, JP JPY, …)`,
    );
    return { fromMarketplace: true };
  }
  if (hints.bodyCurrency !== undefined) {
    notes.push(
      `${where}: no currency member and no marketplace in the rows: the answer says "${hints.bodyCurrency.code}" at "${hints.bodyCurrency.path}", taken for every amount (currency: { fixed: ${hints.bodyCurrency.code} }): check it`,
    );
    return { fixed: hints.bodyCurrency.code };
  }
  const asked = hints.asked;
  const code =
    asked === undefined ? undefined : MARKETPLACE_CURRENCY[asked as keyof typeof MARKETPLACE_CURRENCY];
  if (code === undefined) return undefined;
  notes.push(
    `${where}: no currency member, no marketplace in the rows and none in the answer: assumed ${code}, the currency of ${asked}, the marketplace probe asked for (currency: { fixed: ${code} }): check it, and say the currency of each workspace's marketplace`,
  );
  return { fixed: code };
}

/** A money field at `path` in a row, read from the row and its siblings. */
export function moneySpec(
  path: string,
  container: unknown,
  rows: readonly unknown[],
  hints: MoneyHints,
  where: string,
  notes: string[],
): FieldSpecObject {
  const value = valueAt(container, path);
  const object = typeof value === 'object' && value !== null;
  const amount = object ? (keysOf(value).find((k) => !/currency/i.test(k)) ?? 'amount') : path;
  const inRow = object ? currencyKey(value) : currencyKey(container);
  const values = object ? amountsOf(path, amount, rows) : amountsOf('', path, rows);
  const format = scaleOf(amount, values, inRow !== undefined, where, notes);
  let spec: FieldSpecObject;
  if (inRow !== undefined)
    spec = object
      ? { path, format, amount, currency: inRow }
      : { path: '', format, amount: path, currency: inRow };
  else {
    const currency = currencySource(hints, where, notes);
    // Nothing says a currency: the contract's member is kept, and the read fails loudly (never a guess).
    spec =
      currency === undefined
        ? { path, format }
        : object
          ? { path, format, amount, currency }
          : { path, format, currency };
    if (currency === undefined)
      notes.push(
        `${where}: no currency member and nothing says the currency: say it (currency: { fixed: USD })`,
      );
  }
  const noFigure = noFigureFor(spec, rows, where, notes);
  return noFigure === undefined ? spec : { ...spec, noFigure };
}
