import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// Checks docs/openapi.yaml against the project's assumed contract (shared api-contract.md):
// the seven endpoints, the error responses, the rate-limit headers and that every $ref resolves.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

const EXPECTED_OPERATIONS = [
  'GET /v1/arc/reviews',
  'GET /v1/books/{asin}',
  'GET /v1/books/{asin}/keywords',
  'GET /v1/keywords/search',
  'GET /v1/rankings',
  'GET /v1/sales',
  'POST /v1/arc/invites',
];

const MARKETPLACES = ['US', 'UK', 'DE', 'FR', 'ES', 'IT', 'NL', 'JP', 'IN', 'CA', 'BR', 'MX', 'AU'];
const RATE_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-Quota-Limit',
  'X-Quota-Remaining',
];
const ERROR_SCHEMA_REF = '#/components/schemas/Error';

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function loadSpec(): JsonObject {
  const text = readFileSync(new URL('../../docs/openapi.yaml', import.meta.url), 'utf8');
  const doc = parse(text) as Json;
  if (!isObject(doc)) throw new Error('docs/openapi.yaml is not a YAML mapping');
  return doc;
}

/** Resolves a local JSON pointer (`#/a/b`); undefined when any step is missing. */
function resolvePointer(doc: JsonObject, ref: string): Json | undefined {
  if (!ref.startsWith('#/')) return undefined;
  let node: Json | undefined = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isObject(node)) node = Object.hasOwn(node, key) ? node[key] : undefined;
    else return undefined;
  }
  return node;
}

/** Follows `$ref` chains until a node without one. */
function deref(doc: JsonObject, node: Json | undefined): Json | undefined {
  let current = node;
  for (let hops = 0; hops < 20 && isObject(current) && typeof current.$ref === 'string'; hops++) {
    current = resolvePointer(doc, current.$ref);
  }
  return current;
}

function allRefs(node: Json | undefined, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) allRefs(item, out);
  else if (isObject(node)) {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') out.push(value);
      else allRefs(value, out);
    }
  }
  return out;
}

function danglingRefs(doc: JsonObject): string[] {
  return allRefs(doc).filter((ref) => resolvePointer(doc, ref) === undefined);
}

function operations(doc: JsonObject): Map<string, JsonObject> {
  const ops = new Map<string, JsonObject>();
  const paths = doc.paths;
  if (!isObject(paths)) return ops;
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (isObject(op)) ops.set(`${method.toUpperCase()} ${path}`, op);
    }
  }
  return ops;
}

/** True when `node`, following `$ref`s transitively, mentions `target`. */
function refersTo(
  doc: JsonObject,
  node: Json | undefined,
  target: string,
  seen = new Set<string>(),
): boolean {
  for (const ref of allRefs(node)) {
    if (ref === target) return true;
    if (seen.has(ref)) continue;
    seen.add(ref);
    if (refersTo(doc, resolvePointer(doc, ref), target, seen)) return true;
  }
  return false;
}

function jsonSchemaOf(doc: JsonObject, response: Json | undefined): Json | undefined {
  const resolved = deref(doc, response);
  if (!isObject(resolved) || !isObject(resolved.content)) return undefined;
  const json = resolved.content['application/json'];
  return isObject(json) ? json.schema : undefined;
}

function responseCodes(op: JsonObject): string[] {
  return isObject(op.responses) ? Object.keys(op.responses) : [];
}

const spec = loadSpec();
const ops = operations(spec);

describe('docs/openapi.yaml (assumed Publishing Analytics API contract)', () => {
  it('is OpenAPI 3.1', () => {
    expect(String(spec.openapi)).toMatch(/^3\.1(\.|$)/);
  });

  it('says loudly that it is an assumed contract and where changes belong', () => {
    const info = spec.info;
    const description = isObject(info) && typeof info.description === 'string' ? info.description : '';
    expect(description.toLowerCase()).toContain('assum');
    expect(description).toContain('not shown');
    // Where changes belong now: a contract file, not code (docs/real-api.md).
    expect(description).toContain('contract file');
    expect(description).toContain('docs/real-api.md');
    expect(description).toContain('/_sim/');
    expect(description.toLowerCase()).toContain('unknown fields');
  });

  it('has exactly the seven (method, path) pairs of the contract, and no /_sim path', () => {
    expect([...ops.keys()].sort()).toEqual(EXPECTED_OPERATIONS);
    expect(Object.keys(isObject(spec.paths) ? spec.paths : {}).some((p) => p.startsWith('/_sim'))).toBe(
      false,
    );
  });

  it.each(EXPECTED_OPERATIONS)('%s answers success, 400, 401, 429 and 5xx with the error schema', (key) => {
    const op = ops.get(key);
    expect(op, `${key} is missing`).toBeDefined();
    const codes = responseCodes(op!);
    const success = key.startsWith('POST') ? '201' : '200';
    expect(codes).toContain(success);
    expect(codes).toEqual(expect.arrayContaining(['400', '401', '429']));
    const serverCodes = codes.filter((code) => ['5XX', '500', '503'].includes(code));
    expect(serverCodes.length).toBeGreaterThan(0);

    const responses = op!.responses as JsonObject;
    for (const code of ['400', '401', '429', ...serverCodes]) {
      const schema = jsonSchemaOf(spec, responses[code]);
      expect(schema, `${key} ${code} has no application/json schema`).toBeDefined();
      expect(refersTo(spec, schema, ERROR_SCHEMA_REF), `${key} ${code} does not use the error schema`).toBe(
        true,
      );
    }
    expect(refersTo(spec, jsonSchemaOf(spec, responses[success]), ERROR_SCHEMA_REF)).toBe(false);
  });

  it('puts the rate-limit and quota headers on every response, and Retry-After on 429', () => {
    for (const [key, op] of ops) {
      for (const [code, response] of Object.entries(op.responses as JsonObject)) {
        const resolved = deref(spec, response);
        const headers = isObject(resolved) && isObject(resolved.headers) ? resolved.headers : {};
        expect(Object.keys(headers), `${key} ${code}`).toEqual(expect.arrayContaining(RATE_HEADERS));
        for (const name of RATE_HEADERS) {
          expect(headers[name], `${key} ${code} ${name}`).toEqual({ $ref: `#/components/headers/${name}` });
        }
      }
      const tooMany = deref(spec, (op.responses as JsonObject)['429']);
      const retryAfter =
        isObject(tooMany) && isObject(tooMany.headers) ? tooMany.headers['Retry-After'] : null;
      expect(deref(spec, retryAfter), `${key} 429 Retry-After`).toMatchObject({ required: true });
    }
  });

  it('lists the rate_limited and quota_exceeded codes on 429 and details on 422', () => {
    const tooMany = JSON.stringify(jsonSchemaOf(spec, { $ref: '#/components/responses/TooManyRequests' }));
    expect(tooMany).toContain('rate_limited');
    expect(tooMany).toContain('quota_exceeded');
    const invites = ops.get('POST /v1/arc/invites')!;
    const responses = invites.responses as JsonObject;
    expect(Object.keys(responses)).toEqual(expect.arrayContaining(['409', '422']));
    expect(JSON.stringify(jsonSchemaOf(spec, responses['422']))).toContain('details');
  });

  it('requires the Idempotency-Key header and 1..100 readers on POST /v1/arc/invites', () => {
    const invites = ops.get('POST /v1/arc/invites')!;
    const params = (invites.parameters as Json[]).map((p) => deref(spec, p));
    expect(params).toContainEqual(
      expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: true }),
    );
    const request = deref(spec, { $ref: '#/components/schemas/ArcInviteRequest' }) as JsonObject;
    const readers = (request.properties as JsonObject).readers as JsonObject;
    expect([readers.minItems, readers.maxItems]).toEqual([1, 100]);
  });

  it('repeats asin and keyword on /v1/rankings with explode', () => {
    const params = (ops.get('GET /v1/rankings')!.parameters as Json[]).map((p) => deref(spec, p));
    for (const name of ['asin', 'keyword']) {
      expect(params).toContainEqual(
        expect.objectContaining({
          name,
          in: 'query',
          explode: true,
          schema: expect.objectContaining({ type: 'array' }),
        }),
      );
    }
  });

  it('has no $ref that points at nothing', () => {
    expect(allRefs(spec).length).toBeGreaterThan(50);
    expect(danglingRefs(spec)).toEqual([]);
  });

  it('fixes the shared scalar formats: marketplaces, ASIN, limit, money, nullable rank', () => {
    const schemas = (spec.components as JsonObject).schemas as JsonObject;
    const marketplace = schemas.Marketplace as JsonObject;
    expect([...(marketplace.enum as string[])].sort()).toEqual([...MARKETPLACES].sort());
    expect((marketplace.enum as string[]).length).toBe(13);
    expect((schemas.Asin as JsonObject).pattern).toBe('^[A-Z0-9]{10}$');
    expect((schemas.Rank as JsonObject).type).toEqual(['integer', 'null']);
    const amount = ((schemas.Money as JsonObject).properties as JsonObject).amount as JsonObject;
    expect(amount.type).toBe('string');
    const limit = deref(spec, { $ref: '#/components/parameters/Limit' }) as JsonObject;
    expect(limit.schema).toMatchObject({ minimum: 1, maximum: 100, default: 50 });
  });

  // The checks above must be able to fail: run them on broken copies of the document.
  it('notices a missing endpoint and a dangling $ref', () => {
    const withoutSales = structuredClone(spec);
    delete (withoutSales.paths as JsonObject)['/v1/sales'];
    expect([...operations(withoutSales).keys()].sort()).not.toEqual(EXPECTED_OPERATIONS);

    const broken = structuredClone(spec);
    const book = ((broken.paths as JsonObject)['/v1/books/{asin}'] as JsonObject).get as JsonObject;
    (book.responses as JsonObject)['400'] = { $ref: '#/components/responses/NoSuchResponse' };
    expect(danglingRefs(broken)).toContain('#/components/responses/NoSuchResponse');
    expect(
      refersTo(broken, jsonSchemaOf(broken, (book.responses as JsonObject)['400']), ERROR_SCHEMA_REF),
    ).toBe(false);
  });
});
