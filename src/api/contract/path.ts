/**
 * Dotted paths compiled once into closures: the poll path never splits a string per item. A part of
 * digits indexes an array (points as `[at, rank]` pairs); '' is the value itself.
 */

export type Getter = (value: unknown) => unknown;
export type Setter = (target: Record<string, unknown> | unknown[], value: unknown) => void;

export function splitPath(path: string): string[] {
  return path === '' ? [] : path.split('.');
}

/** Parts no path may have: reading or writing them reaches every object's prototype. */
export const FORBIDDEN_PARTS = ['__proto__', 'constructor', 'prototype'] as const;

export function isForbiddenPart(part: string): boolean {
  return (FORBIDDEN_PARTS as readonly string[]).includes(part);
}

/** Thrown when a path with a forbidden part reaches the compiler (the contract's schema refuses it first). */
export class ForbiddenPathError extends Error {
  override readonly name = 'ForbiddenPathError';
}

/** The parts of `path`, refusing `__proto__`, `constructor` and `prototype`. */
function safeParts(path: string): string[] {
  const parts = splitPath(path);
  const bad = parts.find(isForbiddenPart);
  if (bad !== undefined)
    throw new ForbiddenPathError(`contract path "${path}": "${bad}" is not allowed in a path`);
  return parts;
}

function step(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

/** A getter for `path`; undefined wherever the path leads nowhere. Specialised for short paths. */
export function compileGetter(path: string): Getter {
  const parts = safeParts(path);
  const [a, b, c] = parts;
  switch (parts.length) {
    case 0:
      return (value) => value;
    case 1:
      return (value) => step(value, a as string);
    case 2:
      return (value) => step(step(value, a as string), b as string);
    case 3:
      return (value) => step(step(step(value, a as string), b as string), c as string);
    default:
      return (value) => {
        let at = value;
        for (const part of parts) at = step(at, part);
        return at;
      };
  }
}

/** A setter that creates the objects (or arrays, for a digit part) on the way. Used by the simulator. */
export function compileSetter(path: string): Setter {
  const parts = safeParts(path);
  if (parts.length === 0) {
    return (target, value) => {
      if (typeof value === 'object' && value !== null) Object.assign(target, value);
    };
  }
  const last = parts[parts.length - 1] as string;
  const lead = parts.slice(0, -1);
  return (target, value) => {
    let at = target as Record<string, unknown>;
    lead.forEach((part, index) => {
      const next = at[part];
      if (typeof next === 'object' && next !== null) {
        at = next as Record<string, unknown>;
      } else {
        const child = /^\d+$/.test(parts[index + 1] ?? '') ? [] : {};
        at[part] = child;
        at = child as Record<string, unknown>;
      }
    });
    at[last] = value;
  };
}

/** `a.b` + `[3]` + `c` → `a.b[3].c`: how issue paths are written. */
export function joinPath(prefix: string, path: string): string {
  if (path === '') return prefix;
  if (prefix === '') return path;
  return `${prefix}.${path}`;
}
