// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { configJsonSchema } from '../../src/config/json-schema.ts';

type JsonObject = Record<string, unknown>;

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function object(value: unknown): JsonObject {
  if (typeof value !== 'object' || value === null)
    throw new Error(`expected an object, got ${String(value)}`);
  return value as JsonObject;
}

function properties(schema: unknown): JsonObject {
  return object(object(schema).properties);
}

/** Every property name under `schema`, following items, anyOf and oneOf; skipping the given keys. */
function allKeys(schema: unknown, skip: ReadonlySet<string>, into = new Set<string>()): Set<string> {
  if (typeof schema !== 'object' || schema === null) return into;
  const node = schema as JsonObject;
  if (typeof node.properties === 'object' && node.properties !== null) {
    for (const [key, child] of Object.entries(node.properties)) {
      if (skip.has(key)) continue;
      into.add(key);
      allKeys(child, skip, into);
    }
  }
  for (const nested of [
    node.items,
    ...((node.anyOf as unknown[]) ?? []),
    ...((node.oneOf as unknown[]) ?? []),
  ]) {
    allKeys(nested, skip, into);
  }
  return into;
}

describe('configJsonSchema', () => {
  const schema = configJsonSchema();

  it('is a draft 2020-12 schema with a title and description', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.title).toBe('shelfwatch configuration');
    expect(schema.description).toEqual(expect.stringContaining('${VAR}'));
    expect(schema.type).toBe('object');
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(['workspaces']);
  });

  it('describes the workspace properties, input side (durations as strings, plans as names)', () => {
    const workspace = object(object(properties(schema).workspaces).items);
    expect(Object.keys(properties(workspace))).toEqual([
      'id',
      'baseUrl',
      'allowInsecure',
      'api',
      'apiKey',
      'plan',
      'reserve',
      'timeZone',
      'books',
      'campaigns',
      'sales',
      'keywordSource',
      'cadence',
      'rules',
    ]);
    expect(workspace.required).toEqual(['id', 'baseUrl', 'apiKey']);
    expect(workspace.additionalProperties).toBe(false);
    const cadence = properties(properties(workspace).cadence);
    expect(object(cadence.reviews).type).toEqual(['string', 'number']);
    const plan = object(properties(workspace).plan);
    expect(plan.default).toBe('studio');
    expect(JSON.stringify(plan.anyOf)).toContain('"enum":["studio","publisher"]');
    expect(object(properties(workspace).apiKey).type).toBe('string');
  });

  it('is plain JSON (serialises and parses back unchanged)', () => {
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
  });
});

describe('docs/configuration.md', () => {
  const doc = readFileSync(resolve(ROOT, 'docs/configuration.md'), 'utf8');
  const schema = configJsonSchema();

  it('mentions every top-level and workspace-level key of the schema', () => {
    const workspace = object(object(properties(schema).workspaces).items);
    const keys = [...Object.keys(properties(schema)), ...Object.keys(properties(workspace))];
    const missing = keys.filter((key) => !doc.includes(`\`${key}\``));
    expect(missing).toEqual([]);
  });

  it('mentions every other config key too (rule options are documented with the rules)', () => {
    const missing = [...allKeys(schema, new Set(['rules']))].filter((key) => !doc.includes(`\`${key}\``));
    expect(missing).toEqual([]);
  });
});
