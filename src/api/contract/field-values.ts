/**
 * How one logical field's value is read from and written to the wire by its kind and spec: time and
 * date formats, enums, a sales day's state, scaled numbers, numbers as text; and what a field expects,
 * said in a drift report. Split from fields.ts, which walks paths, objects and lists.
 */
import type { FieldKind } from './catalog.ts';
import {
  numberFromText,
  readDate,
  readEnum,
  readFinality,
  readPlain,
  readTime,
  writeDate,
  writeEnum,
  writeFinality,
  writeTime,
} from './formats.ts';
import type { FieldSpecObject } from './schema.ts';

export interface Enums {
  marketplace: Readonly<Record<string, string>>;
  platform: Readonly<Record<string, string>>;
  inviteStatus: Readonly<Record<string, string>>;
  salesStatus: Readonly<Record<string, string>>;
}

export function expectation(kind: FieldKind, spec: FieldSpecObject): string {
  switch (kind) {
    case 'time':
      return `a time as ${spec.format ?? 'iso'}`;
    case 'date':
      return `a date as ${spec.format ?? 'date'}`;
    case 'money':
      return `money as ${spec.format ?? 'decimal_string'}${typeof spec.currency === 'object' ? '' : ' with a 3-letter currency'}${spec.noFigure === undefined ? '' : ` or one of ${JSON.stringify(spec.noFigure)}`}`;
    case 'rank':
    case 'rating':
      return `a number or one of ${JSON.stringify(spec.unranked ?? [null])}`;
    case 'list':
      return 'a list';
    case 'int':
    case 'number':
      return spec.format === 'string' ? 'a number as text' : 'a number';
    case 'nullableString':
      return 'text or null';
    default:
      return 'text';
  }
}

function epochMsOf(spec: FieldSpecObject): number {
  return spec.epoch === undefined ? 0 : Date.parse(`${spec.epoch}T00:00:00Z`);
}

/** `scale`: the wire number is ours times it (a rating sent x10); rounded back so 4.4 stays 4.4. */
export function scaled(read: (v: unknown) => unknown, scale: number | undefined): (v: unknown) => unknown {
  if (scale === undefined || scale === 1) return read;
  return (v) => {
    const n = read(v);
    return typeof n === 'number' ? Math.round((n / scale) * 1e9) / 1e9 : n;
  };
}

export function unscaled(value: unknown, scale: number | undefined): unknown {
  return scale === undefined || typeof value !== 'number' ? value : Math.round(value * scale * 1e6) / 1e6;
}

export function valueReader(kind: FieldKind, spec: FieldSpecObject, enums: Enums): (v: unknown) => unknown {
  switch (kind) {
    case 'time':
      return readTime(spec.format ?? 'iso', epochMsOf(spec));
    case 'date':
      return readDate(spec.format ?? 'date', epochMsOf(spec));
    case 'finality':
      return readFinality(spec.format ?? 'final', enums.salesStatus);
    case 'marketplace':
    case 'platform':
    case 'inviteStatus':
      return readEnum(enums[kind]);
    default:
      return scaled(spec.format === 'string' ? numberFromText : readPlain(kind), spec.scale);
  }
}

export function valueWriter(kind: FieldKind, spec: FieldSpecObject, enums: Enums): (v: unknown) => unknown {
  switch (kind) {
    case 'time':
      return writeTime(spec.format ?? 'iso', epochMsOf(spec));
    case 'date':
      return writeDate(spec.format ?? 'date', epochMsOf(spec));
    case 'finality':
      return writeFinality(spec.format ?? 'final', enums.salesStatus);
    case 'marketplace':
    case 'platform':
    case 'inviteStatus':
      return writeEnum(enums[kind]);
    default:
      return spec.format === 'string'
        ? (v) => String(unscaled(v, spec.scale))
        : (v) => unscaled(v, spec.scale);
  }
}
