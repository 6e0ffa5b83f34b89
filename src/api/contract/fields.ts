/**
 * One logical field compiled into closures: a reader (answer → canonical value), an explainer (what
 * broke, where, what was found: only run once a read failed) and a writer (canonical → answer, for the
 * simulator). Objects and list items are a list of such fields.
 */
import type { FieldKind, LogicalField } from './catalog.ts';
import { type Enums, expectation, scaled, unscaled, valueReader, valueWriter } from './field-values.ts';
import { describeFound, FAIL, readRank, type UnrankedValue, unrankedOut } from './formats.ts';
import { listIn, listOut } from './layouts.ts';
import { compileMoney, type MoneyNode } from './money.ts';
import { compileGetter, compileSetter, joinPath, splitPath } from './path.ts';
import type { FieldSpec, FieldSpecObject } from './schema.ts';

export type { Enums } from './field-values.ts';

/** A drift report line: which logical field, where in the answer, what was there. */
export interface FieldIssue {
  field: string;
  path: string;
  found: string;
  message: string;
}

/** Returned by an optional field that is absent: nothing is set. */
const OMIT: unique symbol = Symbol('contract.omit');
const MAX_EXPLAINED = 5;

export interface FieldNode {
  name: string;
  kind: FieldKind;
  rawPath: string;
  canonical: readonly string[];
  /** Money only: where amount and currency are below rawPath. */
  amountPath?: string;
  currencyPath?: string;
  items?: ObjectNode;
  read(container: unknown): unknown;
  explain(container: unknown, rawPrefix: string, fieldPrefix: string, out: FieldIssue[]): void;
  write(canonical: unknown, target: Record<string, unknown>): void;
}

export interface ObjectNode {
  fields: readonly FieldNode[];
  /** The canonical object, or FAIL. */
  read(raw: unknown): unknown;
  explain(raw: unknown, rawPrefix: string, fieldPrefix: string, out: FieldIssue[]): void;
  write(canonical: unknown): Record<string, unknown>;
}

export function normalizeSpec(spec: FieldSpec): FieldSpecObject {
  return typeof spec === 'string' ? { path: spec } : spec;
}

function canonicalSetter(parts: readonly string[]): (out: Record<string, unknown>, value: unknown) => void {
  const [a, b] = parts as [string, string | undefined];
  if (b === undefined) {
    return (out, value) => {
      out[a] = value;
    };
  }
  return (out, value) => {
    let inner = out[a] as Record<string, unknown> | undefined;
    if (inner === undefined) {
      inner = {};
      out[a] = inner;
    }
    inner[b] = value;
  };
}

/** The first value found at `path`, then at each of `alsoAt` (a field the API puts in several places). */
function firstOf(paths: readonly string[]): (container: unknown) => unknown {
  const getters = paths.map(compileGetter);
  if (getters.length === 1) return getters[0] as (container: unknown) => unknown;
  return (container) => {
    for (const get of getters) {
      const value = get(container);
      if (value !== undefined) return value;
    }
    return undefined;
  };
}

/** `marketplaceOf`: the canonical marketplace of the same object (money whose currency follows it). */
export function compileField(
  name: string,
  logical: LogicalField,
  spec: FieldSpec,
  enums: Enums,
  marketplaceOf?: (container: unknown) => unknown,
): FieldNode {
  const s = normalizeSpec(spec);
  const get = firstOf([s.path, ...(s.alsoAt ?? [])]);
  const set = compileSetter(s.path);
  const canonical = splitPath(logical.canonical);
  const expected = expectation(logical.kind, s);
  // `optional: true` in the contract: the member may be absent (read as null or left out).
  const optional = logical.optional === true || s.optional === true;
  const leaveOut = s.optional === true;
  let read: (container: unknown) => unknown;
  let write: (value: unknown, target: Record<string, unknown>) => void;
  const node: Partial<FieldNode> = { name, kind: logical.kind, rawPath: s.path, canonical };
  let money: MoneyNode | undefined;

  if (logical.kind === 'list') {
    const items = compileObject(logical.items ?? {}, normalizeItems(s.items), enums);
    node.items = items;
    const unpack = listIn(s.layout, items.fields.length);
    const pack = listOut(s.layout);
    read = (container) => {
      const raw = get(container);
      if (raw === undefined && optional) return leaveOut ? [] : OMIT;
      const list = unpack(raw);
      if (list === undefined) return FAIL;
      const out = new Array<unknown>(list.length);
      for (let i = 0; i < list.length; i++) {
        const item = items.read(list[i]);
        if (item === FAIL) return FAIL;
        out[i] = item;
      }
      return out;
    };
    write = (value, target) => {
      if (Array.isArray(value) && !(leaveOut && value.length === 0))
        set(target, pack(value.map((item) => items.write(item))));
    };
  } else if (logical.kind === 'money') {
    money = compileMoney(s, get, marketplaceOf);
    node.amountPath = money.amountPath;
    if (money.currencyPath !== undefined) node.currencyPath = money.currencyPath;
    read = money.read;
    write = money.write;
  } else if (logical.kind === 'rank' || logical.kind === 'rating') {
    const unranked: UnrankedValue[] = s.unranked ?? [null];
    const rank = readRank(unranked, s.format);
    const readScaled = scaled(rank.read, s.scale);
    const none = unrankedOut(unranked);
    const text = s.format === 'string';
    read = (container) => {
      const v = get(container);
      return v === undefined ? (rank.missingIsNone || leaveOut ? null : FAIL) : readScaled(v);
    };
    write = (value, target) => {
      const wire = unscaled(value, s.scale);
      if (value !== null) set(target, text ? String(wire) : wire);
      else if (none !== undefined) set(target, text && none !== null ? String(none) : none);
    };
  } else {
    const valueIn = valueReader(logical.kind, s, enums);
    const valueOut = valueWriter(logical.kind, s, enums);
    read = (container) => {
      const v = get(container);
      if (v === undefined && optional) return leaveOut && logical.kind === 'nullableString' ? null : OMIT;
      return valueIn(v);
    };
    write = (value, target) => {
      if (value === undefined || (leaveOut && value === null)) return;
      set(target, valueOut(value));
    };
  }

  const canonicalGet = compileGetter(logical.canonical);
  return {
    ...(node as FieldNode),
    read,
    explain(container, rawPrefix, fieldPrefix, out) {
      const field = fieldPrefix === '' ? name : `${fieldPrefix}.${name}`;
      const path = joinPath(rawPrefix, s.path);
      const list = get(container);
      if (node.items !== undefined && Array.isArray(list)) {
        for (let i = 0; i < list.length && out.length < MAX_EXPLAINED; i++) {
          node.items.explain(list[i], `${path}[${i}]`, `${field}[${i}]`, out);
        }
        return;
      }
      if (money !== undefined) {
        const bad = money.explain(container);
        out.push({
          field,
          path: joinPath(path, bad.path),
          found: bad.found,
          message: `expected ${expected}`,
        });
        return;
      }
      out.push({
        field,
        path: path === '' ? '(root)' : path,
        found: describeFound(list),
        message: `expected ${expected}`,
      });
    },
    write(canonicalObject, target) {
      write(canonicalGet(canonicalObject), target);
    },
  };
}

function normalizeItems(items: Record<string, FieldSpec> | undefined): Record<string, FieldSpec> {
  return items ?? {};
}

export function compileObject(
  catalog: Readonly<Record<string, LogicalField>>,
  specs: Readonly<Record<string, FieldSpec>>,
  enums: Enums,
): ObjectNode {
  const fields: FieldNode[] = [];
  // Money whose currency is the row's marketplace's reads that sibling field first.
  const mpName = Object.keys(catalog).find((n) => catalog[n]?.kind === 'marketplace');
  const mpLogical = mpName === undefined ? undefined : catalog[mpName];
  const mpSpec = mpName === undefined ? undefined : specs[mpName];
  const marketplaceOf =
    mpName === undefined || mpLogical === undefined || mpSpec === undefined
      ? undefined
      : compileField(mpName, mpLogical, mpSpec, enums).read;
  for (const [name, logical] of Object.entries(catalog)) {
    const spec = specs[name];
    if (spec === undefined) continue; // checked at load: every logical field has a spec
    fields.push(compileField(name, logical, spec, enums, marketplaceOf));
  }
  const setters = fields.map((field) => canonicalSetter(field.canonical));
  const pair = fields.length > 0 && fields.every((field) => /^\d+(\.|$)/.test(field.rawPath));
  const count = fields.length;
  return {
    fields,
    read(raw) {
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw) !== pair) return FAIL;
      const out: Record<string, unknown> = {};
      for (let i = 0; i < count; i++) {
        const value = (fields[i] as FieldNode).read(raw);
        if (value === FAIL) return FAIL;
        if (value !== OMIT) (setters[i] as (o: Record<string, unknown>, v: unknown) => void)(out, value);
      }
      return out;
    },
    explain(raw, rawPrefix, fieldPrefix, out) {
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw) !== pair) {
        out.push({
          field: fieldPrefix === '' ? '(object)' : fieldPrefix,
          path: rawPrefix === '' ? '(root)' : rawPrefix,
          found: describeFound(raw),
          message: pair ? 'expected a list (a pair)' : 'expected an object',
        });
        return;
      }
      for (const field of fields) {
        if (out.length >= MAX_EXPLAINED) return;
        if (field.read(raw) === FAIL) field.explain(raw, rawPrefix, fieldPrefix, out);
      }
    },
    write(canonical) {
      // Fields at 0, 1, ... are the places of a pair such as [at, rank]: written as an array.
      const target = (pair ? [] : {}) as Record<string, unknown>;
      for (const field of fields) field.write(canonical, target);
      return target;
    },
  };
}
