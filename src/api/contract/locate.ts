/** Where a zod issue on the canonical shape is in the API's answer, for drift reports. */
import type { ObjectNode } from './fields.ts';
import { joinPath } from './path.ts';

/**
 * Where a canonical path (a zod issue's) is in the answer: the logical field and its raw path. A
 * path below no logical field (zod saw it on the object itself) is reported at the object.
 */
export function locate(
  node: ObjectNode,
  path: readonly PropertyKey[],
  rawPrefix: string,
  fieldPrefix: string,
): { field: string; path: string } {
  for (const field of node.fields) {
    const n = field.canonical.length;
    if (path.length < n || !field.canonical.every((part, i) => path[i] === part)) continue;
    const name = fieldPrefix === '' ? field.name : `${fieldPrefix}.${field.name}`;
    const raw = joinPath(rawPrefix, field.rawPath);
    const rest = path.slice(n);
    const index = rest[0];
    if (field.items !== undefined && typeof index === 'number') {
      return locate(field.items, rest.slice(1), `${raw}[${index}]`, `${name}[${index}]`);
    }
    if (field.kind === 'money' && rest[0] === 'amount')
      return { field: name, path: joinPath(raw, field.amountPath ?? '') };
    if (field.kind === 'money' && rest[0] === 'currency')
      return { field: name, path: joinPath(raw, field.currencyPath ?? '') };
    return { field: name, path: raw === '' ? '(root)' : raw };
  }
  return {
    field: fieldPrefix === '' ? '(object)' : fieldPrefix,
    path: rawPrefix === '' ? '(root)' : rawPrefix,
  };
}

/** The value at an issue path such as `result.items[3].pos`, for "what was found there". */
export function valueAtIssuePath(body: unknown, path: string): unknown {
  if (path === '(root)') return body;
  let at = body;
  for (const part of path.split(/\.|\[|\]/)) {
    if (part === '') continue;
    at = typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[part] : undefined;
  }
  return at;
}
