/**
 * An endpoint's answer read through its compiled object: the body → the canonical type, validated by
 * the schemas of schemas.ts, or the issues that say which logical field broke, where in the answer and
 * what was there. Split from compile.ts, which assembles the contract.
 */
import type { z } from 'zod';
import type { SchemaIssue } from '../errors.ts';
import type { BodyValidator } from '../validator.ts';
import type { EndpointName } from './catalog.ts';
import type { FieldIssue, ObjectNode } from './fields.ts';
import { describeFound, FAIL } from './formats.ts';
import { locate, valueAtIssuePath } from './locate.ts';
import { compileGetter } from './path.ts';

export type ReadResult<T> = { ok: true; data: T } | { ok: false; issues: SchemaIssue[] };
export type BodyReader<T> = (body: unknown) => ReadResult<T>;

function zodIssues(
  error: z.ZodError,
  node: ObjectNode,
  body: unknown,
  rawPrefix: string,
  fieldPrefix: string,
  indexed: boolean,
): SchemaIssue[] {
  return error.issues.map((issue) => {
    let path: readonly PropertyKey[] = issue.path;
    let prefix = rawPrefix;
    let fields = fieldPrefix;
    if (indexed && typeof path[0] === 'number') {
      prefix = `${rawPrefix}[${path[0]}]`;
      fields = `${fieldPrefix}[${path[0]}]`;
      path = path.slice(1);
    }
    const at = locate(node, path, prefix, fields);
    return {
      path: at.path,
      message: issue.message,
      field: at.field,
      found: describeFound(valueAtIssuePath(body, at.path)),
    };
  });
}

function fromFieldIssues(issues: FieldIssue[]): SchemaIssue[] {
  return issues.map((i) => ({ path: i.path, message: i.message, field: i.field, found: i.found }));
}

function rootIssue(root: string, found: unknown, what: string): SchemaIssue[] {
  return [
    {
      path: root === '' ? '(root)' : root,
      message: `expected ${what}`,
      field: '(envelope)',
      found: describeFound(found),
    },
  ];
}

export function objectReader<T>(
  name: EndpointName,
  node: ObjectNode,
  root: string,
  validator: BodyValidator<T>,
  identity: boolean,
): BodyReader<T> {
  const getRoot = compileGetter(root);
  return (body) => {
    const raw = getRoot(body);
    const canonical = identity ? raw : node.read(raw);
    if (canonical === FAIL) {
      const issues: FieldIssue[] = [];
      node.explain(raw, root, name, issues);
      return {
        ok: false,
        issues: issues.length > 0 ? fromFieldIssues(issues) : rootIssue(root, raw, 'an object'),
      };
    }
    const result = validator.safeParse(canonical);
    if (result.success) return { ok: true, data: result.data };
    return { ok: false, issues: zodIssues(result.error, node, body, root, name, false) };
  };
}

export function listReader<T>(
  name: EndpointName,
  node: ObjectNode,
  itemsPath: string,
  item: z.ZodType<T>,
  identity: boolean,
): BodyReader<T[]> {
  const getItems = compileGetter(itemsPath);
  const array = item.array();
  return (body) => {
    const raw = getItems(body);
    if (!Array.isArray(raw)) return { ok: false, issues: rootIssue(itemsPath, raw, 'a list') };
    let items: unknown[] = raw;
    if (!identity) {
      items = new Array<unknown>(raw.length);
      for (let i = 0; i < raw.length; i++) {
        const value = node.read(raw[i]);
        if (value === FAIL) {
          const issues: FieldIssue[] = [];
          node.explain(raw[i], `${itemsPath}[${i}]`, `${name}[${i}]`, issues);
          return { ok: false, issues: fromFieldIssues(issues) };
        }
        items[i] = value;
      }
    }
    const result = array.safeParse(items);
    if (result.success) return { ok: true, data: result.data };
    return { ok: false, issues: zodIssues(result.error, node, body, itemsPath, name, true) };
  };
}
