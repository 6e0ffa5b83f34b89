/**
 * Unknown keys are errors everywhere in the config: every object of the schema tree must be strict,
 * so a typo (`positionLost` for `positionsLost`) is refused instead of silently ignored. The walk
 * covers the whole tree and fails on a schema kind it does not know, so a new object (or a new
 * wrapper around one) cannot slip past it.
 */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { configJsonSchema } from '../../src/config/json-schema.ts';
import { parseConfig } from '../../src/config/load.ts';
import { configSchema } from '../../src/config/schema.ts';
import { problemAt, validRaw } from './helpers.ts';

interface Def {
  type: string;
  shape?: Record<string, z.core.$ZodType>;
  catchall?: z.core.$ZodType;
  element?: z.core.$ZodType;
  options?: z.core.$ZodType[];
  in?: z.core.$ZodType;
  out?: z.core.$ZodType;
  innerType?: z.core.$ZodType;
  getter?: () => z.core.$ZodType;
  valueType?: z.core.$ZodType;
}

/** Schema kinds that hold no object: nothing below them to check. */
const LEAVES = new Set([
  'string',
  'number',
  'int',
  'boolean',
  'literal',
  'enum',
  'never',
  'transform',
  'custom',
  'null',
  'undefined',
  'unknown',
]);
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'catch', 'readonly', 'nonoptional']);

/** Paths of objects that accept unknown keys, and of schema kinds this walk does not know. */
function looseParts(schema: z.core.$ZodType, path: string, seen = new Set<unknown>()): string[] {
  if (seen.has(schema)) return [];
  seen.add(schema);
  const def = schema._zod.def as unknown as Def;
  if (LEAVES.has(def.type)) return [];
  if (WRAPPERS.has(def.type) && def.innerType !== undefined) return looseParts(def.innerType, path, seen);
  switch (def.type) {
    case 'object': {
      const strict = def.catchall?._zod.def.type === 'never';
      return [
        ...(strict ? [] : [`${path || '(top level)'}: an object that accepts unknown keys`]),
        ...Object.entries(def.shape ?? {}).flatMap(([key, child]) =>
          looseParts(child, path === '' ? key : `${path}.${key}`, seen),
        ),
      ];
    }
    case 'array':
      return def.element === undefined ? [] : looseParts(def.element, `${path}[]`, seen);
    case 'union':
      return (def.options ?? []).flatMap((option) => looseParts(option, path, seen));
    case 'pipe':
      return [def.in, def.out].flatMap((part) => (part === undefined ? [] : looseParts(part, path, seen)));
    case 'record':
      return def.valueType === undefined ? [] : looseParts(def.valueType, `${path}.*`, seen);
    case 'lazy':
      return def.getter === undefined ? [] : looseParts(def.getter(), path, seen);
    default:
      return [`${path}: a schema of kind "${def.type}" this walk does not know (teach it)`];
  }
}

/** Paths of JSON Schema objects that have properties but allow others. */
function openJsonObjects(node: unknown, path: string): string[] {
  if (typeof node !== 'object' || node === null) return [];
  if (Array.isArray(node)) return node.flatMap((item, index) => openJsonObjects(item, `${path}/${index}`));
  const record = node as Record<string, unknown>;
  const here =
    typeof record.properties === 'object' && record.additionalProperties !== false
      ? [`${path || '/'}: additionalProperties is ${JSON.stringify(record.additionalProperties)}`]
      : [];
  return [
    ...here,
    ...Object.entries(record).flatMap(([key, child]) => openJsonObjects(child, `${path}/${key}`)),
  ];
}

describe('strict config objects', () => {
  it('every object of the config schema refuses unknown keys', () => {
    expect(looseParts(configSchema, '')).toEqual([]);
  });

  it('the walk finds a loose object (so the check above can fail)', async () => {
    const { z: zod } = await import('zod');
    const sample = zod.strictObject({ a: zod.array(zod.object({ b: zod.string() })).optional() });
    expect(looseParts(sample, '')).toEqual(['a[]: an object that accepts unknown keys']);
  });

  it('every object of the JSON Schema export has additionalProperties: false', () => {
    expect(openJsonObjects(configJsonSchema(), '')).toEqual([]);
  });
});

describe('typos in rule options', () => {
  function problemsWithRules(rules: unknown[]) {
    const raw = { ...validRaw(), rules };
    const result = parseConfig(raw);
    if (result.ok) throw new Error('expected the config to be invalid, but it parsed');
    return result.problems;
  }

  it('positionLost for positionsLost', () => {
    const problems = problemsWithRules([{ id: 'drop', kind: 'keyword_rank_drop', positionLost: 5 }]);
    expect(problemAt(problems, 'rules[0].positionLost')).toEqual({
      path: 'rules[0].positionLost',
      message: 'unknown key "positionLost"',
      hint: 'did you mean "positionsLost"?',
    });
  });

  it('minPercent for percent, in a workspace rule', () => {
    const raw = validRaw();
    const [workspace] = raw.workspaces as Record<string, unknown>[];
    Object.assign(workspace ?? {}, { rules: [{ id: 'royalty', kind: 'royalty_change', minPercent: 20 }] });
    const result = parseConfig(raw);
    if (result.ok) throw new Error('expected the config to be invalid, but it parsed');
    expect(problemAt(result.problems, 'workspaces[0].rules[0].minPercent')).toEqual({
      path: 'workspaces[0].rules[0].minPercent',
      message: 'unknown key "minPercent"',
      hint: 'did you mean "percent"?',
    });
  });

  it('a key far from any option lists the options of that kind', () => {
    const problems = problemsWithRules([{ id: 'gone', kind: 'bsr_removed', zzz: 1 }]);
    expect(problemAt(problems, 'rules[0].zzz').hint).toBe(
      'known keys: id, kind, books, marketplaces, severity, for, repeatEvery',
    );
  });
});
