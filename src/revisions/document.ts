/**
 * A configuration document as stored: plain JSON (mappings, lists, text, numbers, booleans) in
 * the file's own shape, `${VAR}` references kept, secrets sealed (sealing.ts).
 */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };
export type Path = readonly (string | number)[];

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A deep copy that keeps only JSON values (a YAML date or a function would not survive storage). */
export function toJson(value: unknown): Json | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (Array.isArray(value)) {
    const items = value.map(toJson);
    return items.some((item) => item === undefined) ? undefined : (items as Json[]);
  }
  if (isObject(value)) {
    const out: JsonObject = {};
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined) continue;
      const json = toJson(item);
      if (json === undefined) return undefined;
      out[key] = json;
    }
    return out;
  }
  return undefined;
}

export function valueAt(root: unknown, path: Path): unknown {
  let at: unknown = root;
  for (const part of path) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<string | number, unknown>)[part];
  }
  return at;
}

/** Every text leaf with its path, depth first. */
export function textLeaves(root: Json, path: Path = []): { path: Path; text: string }[] {
  if (typeof root === 'string') return [{ path, text: root }];
  if (Array.isArray(root)) return root.flatMap((item, i) => textLeaves(item, [...path, i]));
  if (isObject(root)) return Object.entries(root).flatMap(([k, item]) => textLeaves(item, [...path, k]));
  return [];
}

/** A copy with every text leaf passed through `map` (its path given). */
export function mapText(root: Json, map: (text: string, path: Path) => string, path: Path = []): Json {
  if (typeof root === 'string') return map(root, path);
  if (Array.isArray(root)) return root.map((item, i) => mapText(item, map, [...path, i]));
  if (isObject(root)) {
    const out: JsonObject = {};
    for (const [key, item] of Object.entries(root)) out[key] = mapText(item, map, [...path, key]);
    return out;
  }
  return root;
}

/** Structural equality of two JSON values (key order ignored). */
export function sameJson(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => key in b && sameJson(a[key], b[key]));
  }
  return false;
}

/** A `${VAR}` reference somewhere in the text: the value comes from each process's environment. */
export function hasReference(text: string): boolean {
  return /\$\{[^}]*\}/.test(text.replace(/\$\$\{/g, ''));
}
