/** Reading a config that may be only partly valid, and checking the ids one section names of another. */
import type { z } from 'zod';
import { suggest } from '../config-kit/suggest.ts';

/** Reads `list[i][key]` of a value that may be only partly valid (the check runs on invalid input too). */
export function stringsAt(list: unknown, key: string): (string | undefined)[] {
  if (!Array.isArray(list)) return [];
  return list.map((item: unknown) => {
    const value =
      typeof item === 'object' && item !== null ? (item as Record<string, unknown>)[key] : undefined;
    return typeof value === 'string' ? value : undefined;
  });
}

/** The object at `value`, or an empty one: cross-checks read partly valid input. */
export function recordAt(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

export function checkUnique(
  ids: (string | undefined)[],
  path: (string | number)[],
  what: string,
  ctx: z.RefinementCtx,
): void {
  const first = new Map<string, number>();
  ids.forEach((id, index) => {
    if (id === undefined) return;
    const earlier = first.get(id);
    if (earlier === undefined) first.set(id, index);
    else {
      ctx.addIssue({
        code: 'custom',
        path: [...path, index, 'id'],
        message: `expected a unique ${what} id, got "${id}" again (first at ${path.join('.')}[${earlier}])`,
        params: { hint: `give each ${what} its own id` },
      });
    }
  });
}

/** An id that must name something configured: a problem at `path` with a did-you-mean otherwise. */
export function checkReference(
  value: unknown,
  known: readonly string[],
  path: (string | number)[],
  what: string,
  ctx: z.RefinementCtx,
): void {
  if (typeof value !== 'string' || known.includes(value)) return;
  const close = suggest(value, known);
  ctx.addIssue({
    code: 'custom',
    path,
    message: `expected the id of a configured ${what}, got "${value}"`,
    params: {
      hint:
        close === undefined ? `known ${what}s: ${known.join(', ') || 'none'}` : `did you mean "${close}"?`,
    },
  });
}
