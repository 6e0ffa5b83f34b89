/** How a list is laid out on the wire: objects or pairs (an array), flat `[t, v, t, v]`, or keyed `{ "t": v }`. */
import type { FieldSpecObject } from './schema.ts';

/** A list's wire layout → item values the item fields read ('0' and '1' for the last three layouts). */
export function listIn(
  layout: FieldSpecObject['layout'],
  width: number,
): (raw: unknown) => unknown[] | undefined {
  switch (layout) {
    case 'flat':
      return (raw) => {
        if (!Array.isArray(raw) || raw.length % width !== 0) return undefined;
        const out: unknown[][] = [];
        for (let i = 0; i < raw.length; i += width) out.push(raw.slice(i, i + width));
        return out;
      };
    case 'keyed':
      return (raw) =>
        typeof raw !== 'object' || raw === null || Array.isArray(raw)
          ? undefined
          : Object.entries(raw).map(([key, value]) => [/^-?\d+$/.test(key) ? Number(key) : key, value]);
    default:
      return (raw) => (Array.isArray(raw) ? raw : undefined);
  }
}

export function listOut(layout: FieldSpecObject['layout']): (items: unknown[]) => unknown {
  switch (layout) {
    case 'flat':
      return (items) => items.flatMap((item) => (Array.isArray(item) ? item : [item]));
    case 'keyed':
      return (items) =>
        Object.fromEntries(
          items.map((item) => (Array.isArray(item) ? [String(item[0]), item[1]] : ['', item])),
        );
    default:
      return (items) => items;
  }
}
