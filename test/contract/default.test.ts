/**
 * The built-in contract: its YAML mirror (examples/contract.default.yaml, what users copy) and the
 * JSON Schema for editors stay equal to the code, and every place the default contract names exists
 * in docs/openapi.yaml (fields, query parameters, pagination, error body, rate-limit headers).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CATALOG, type EndpointName } from '../../src/api/contract/catalog.ts';
import { DEFAULT_CONTRACT } from '../../src/api/contract/default.ts';
import { contractJsonSchema, type FieldSpec } from '../../src/api/contract/schema.ts';

type Schema = { [key: string]: unknown };
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const spec = parse(read('docs/openapi.yaml')) as Schema;

function at(ref: string): Schema {
  let node: unknown = spec;
  for (const part of ref.replace(/^#\//, '').split('/')) node = (node as Schema)[part];
  return node as Schema;
}

/** A schema with $ref followed and allOf parts merged, as far as properties and items go. */
function resolve(schema: Schema): Schema {
  if (typeof schema.$ref === 'string') return resolve(at(schema.$ref));
  if (Array.isArray(schema.allOf)) {
    const parts = (schema.allOf as Schema[]).map(resolve);
    return {
      properties: Object.assign({}, ...parts.map((part) => part.properties ?? {})),
      items: parts.find((part) => part.items !== undefined)?.items,
    };
  }
  return schema;
}

function walk(schema: Schema, path: string, where: string): Schema {
  let node = resolve(schema);
  for (const part of path === '' ? [] : path.split('.')) {
    const next = (node.properties as Schema | undefined)?.[part] as Schema | undefined;
    expect(next, `${where}: "${part}" of "${path}" in docs/openapi.yaml`).toBeDefined();
    node = resolve(next as Schema);
  }
  return node;
}

function checkFields(schema: Schema, fields: Readonly<Record<string, FieldSpec>>, where: string): void {
  for (const [name, field] of Object.entries(fields)) {
    const path = typeof field === 'string' ? field : field.path;
    const node = walk(schema, path, `${where}.${name}`);
    if (typeof field !== 'string' && field.items !== undefined) {
      checkFields(node.items as Schema, field.items, `${where}.${name}`);
    }
    if (typeof field !== 'string' && field.amount !== undefined) walk(node, field.amount, `${where}.${name}`);
  }
}

const OPERATIONS: Record<Exclude<EndpointName, 'error'>, [string, string, string]> = {
  book: ['/v1/books/{asin}', 'get', '200'],
  bookKeywords: ['/v1/books/{asin}/keywords', 'get', '200'],
  keywordSearch: ['/v1/keywords/search', 'get', '200'],
  rankings: ['/v1/rankings', 'get', '200'],
  reviews: ['/v1/arc/reviews', 'get', '200'],
  sales: ['/v1/sales', 'get', '200'],
  invites: ['/v1/arc/invites', 'post', '201'],
};

function operation(endpoint: Exclude<EndpointName, 'error'>): Schema {
  const [path, method] = OPERATIONS[endpoint];
  return ((spec.paths as Schema)[path] as Schema)[method] as Schema;
}

function responseSchema(endpoint: Exclude<EndpointName, 'error'>): Schema {
  const status = OPERATIONS[endpoint][2];
  const response = resolve((operation(endpoint).responses as Schema)[status] as Schema);
  return ((response.content as Schema)['application/json'] as Schema).schema as Schema;
}

describe('the default contract', () => {
  it('equals its YAML mirror in examples/', () => {
    expect(parse(read('examples/contract.default.yaml'))).toEqual(DEFAULT_CONTRACT);
  });

  it('has its JSON Schema for editors in examples/', () => {
    expect(JSON.parse(read('examples/contract.schema.json'))).toEqual(contractJsonSchema());
  });

  it('names every logical field of the catalogue', () => {
    // sales.final: the assumed contract sends no such member; it is read only where a contract names it.
    const unread = new Set(['sales.final']);
    for (const [endpoint, fields] of Object.entries(CATALOG)) {
      const given = DEFAULT_CONTRACT.endpoints[endpoint as EndpointName].fields;
      const named = Object.keys(fields).filter((name) => !unread.has(`${endpoint}.${name}`));
      expect(Object.keys(given).sort(), endpoint).toEqual(named.sort());
    }
  });

  it('reads every field where docs/openapi.yaml puts it', () => {
    for (const endpoint of Object.keys(OPERATIONS) as (keyof typeof OPERATIONS)[]) {
      const own = DEFAULT_CONTRACT.endpoints[endpoint] as {
        root?: string;
        items?: string;
        fields: Record<string, FieldSpec>;
      };
      const body = responseSchema(endpoint);
      const object =
        own.items === undefined
          ? walk(body, own.root ?? '', endpoint)
          : walk(body, own.items, endpoint).items;
      checkFields(object as Schema, own.fields, endpoint);
    }
    const error = DEFAULT_CONTRACT.endpoints.error;
    checkFields(walk(at('#/components/schemas/Error'), error.root, 'error'), error.fields, 'error');
  });

  it('pages, filters and limits as docs/openapi.yaml says', () => {
    const names = (endpoint: keyof typeof OPERATIONS) =>
      ((operation(endpoint).parameters as Schema[]) ?? []).map((p) => resolve(p).name);
    const { params, pagination } = DEFAULT_CONTRACT;
    expect(names('book')).toContain(params.marketplace);
    expect(names('keywordSearch')).toEqual(
      expect.arrayContaining([params.query, pagination.cursor.param, pagination.limit.param]),
    );
    expect(names('rankings')).toEqual(
      expect.arrayContaining([params.asin, params.keyword, params.from, params.to]),
    );
    expect(names('reviews')).toEqual(
      expect.arrayContaining([params.campaign, params.platform, params.since]),
    );
    expect(names('sales')).toEqual(
      expect.arrayContaining([params.asin, params.marketplace, params.from, params.to]),
    );
    expect(walk(responseSchema('sales'), pagination.cursor.next, 'next cursor')).toBeDefined();
    expect(resolve(at('#/components/parameters/Limit')).schema).toMatchObject({
      maximum: pagination.limit.max,
    });
  });

  it('reads the rate-limit headers docs/openapi.yaml lists', () => {
    const headers = Object.keys(at('#/components/headers'));
    const { rateLimit, requestIdHeader } = DEFAULT_CONTRACT;
    for (const name of [
      requestIdHeader,
      rateLimit.limit,
      rateLimit.remaining,
      rateLimit.reset.header,
      rateLimit.quotaLimit,
      rateLimit.quotaRemaining,
      rateLimit.retryAfter,
    ]) {
      expect(headers).toContain(name);
    }
  });
});
