/**
 * Turns zod issues into problems a person can act on: the config path, what was expected and
 * what was found, and a hint. Values of secret fields are never repeated.
 */
import type { z } from 'zod';
import { pathText } from '../util/path-text.ts';
import { Secret } from './secret.ts';
import { suggest } from './suggest.ts';

export interface ConfigProblem {
  /** Where, e.g. `workspaces[0].books[2].asin`; a file name or environment variable where that fits. */
  path: string;
  /** What was expected and what was found. */
  message: string;
  /** What to do about it. */
  hint?: string;
}

type Issue = z.core.$ZodIssue;
type PathKey = PropertyKey;

const SECRET_KEYS = new Set(['apiKey', 'webhookUrl', 'smtpUrl', 'linkSecret']);

export function formatPath(path: readonly PathKey[]): string {
  return pathText(path, '(top level)');
}

/** One line per problem: `path: message (hint)`. */
export function formatProblems(problems: readonly ConfigProblem[]): string {
  return problems
    .map(
      (problem) =>
        `${problem.path}: ${problem.message}${problem.hint === undefined ? '' : ` (${problem.hint})`}`,
    )
    .join('\n');
}

function truncate(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** How a found value is shown in a message ("got …"). */
export function describeValue(value: unknown, path: readonly PathKey[] = []): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'an empty value';
  if (value instanceof Secret || SECRET_KEYS.has(String(path.at(-1))))
    return 'a value not shown here (secret)';
  if (typeof value === 'string') return value === '' ? 'an empty string' : JSON.stringify(truncate(value));
  if (Array.isArray(value)) return value.length === 0 ? 'an empty list' : 'a list';
  if (typeof value === 'object') return 'a mapping';
  return String(value);
}

const TYPE_NAMES: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping',
  record: 'a mapping',
  null: 'an empty value',
};

function quoteList(values: readonly unknown[]): string {
  const quoted = values.map((value) => JSON.stringify(value));
  if (quoted.length <= 1) return quoted.join('');
  return `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

/** zod's own messages start with a capital ("Invalid input"); ours start with "expected". */
function ownMessage(message: string): boolean {
  return message.startsWith('expected');
}

function withGot(message: string, issue: Issue, path: readonly PathKey[]): string {
  return / got /.test(message) ? message : `${message}, got ${describeValue(issue.input, path)}`;
}

function bound(kind: 'least' | 'most', limit: number | bigint, inclusive: boolean | undefined): string {
  if (inclusive === false) return kind === 'least' ? `more than ${limit}` : `less than ${limit}`;
  return `at ${kind} ${limit}`;
}

function sizeMessage(issue: Extract<Issue, { code: 'too_small' | 'too_big' }>, path: PathKey[]): string {
  if (ownMessage(issue.message)) return withGot(issue.message, issue, path);
  const small = issue.code === 'too_small';
  const limit = small ? issue.minimum : issue.maximum;
  const range = bound(small ? 'least' : 'most', limit, issue.inclusive);
  if (issue.origin === 'array') {
    const count = Array.isArray(issue.input) ? issue.input.length : undefined;
    return `expected ${range} item${limit === 1 ? '' : 's'}, got ${count ?? describeValue(issue.input, path)}`;
  }
  if (issue.origin === 'string')
    return `expected ${range} characters, got ${describeValue(issue.input, path)}`;
  return `expected ${range}, got ${describeValue(issue.input, path)}`;
}

export type KnownKeys = WeakMap<object, string[]>;

function issueProblems(issue: Issue, prefix: readonly PathKey[], known: KnownKeys): ConfigProblem[] {
  const path = [...prefix, ...issue.path];
  const at = formatPath(path);
  switch (issue.code) {
    case 'unrecognized_keys': {
      const keys =
        typeof issue.input === 'object' && issue.input !== null ? known.get(issue.input) : undefined;
      return issue.keys.map((key) => {
        const close = keys === undefined ? undefined : suggest(key, keys);
        const hint =
          close !== undefined
            ? `did you mean "${close}"?`
            : keys
              ? `known keys: ${keys.join(', ')}`
              : undefined;
        return {
          path: formatPath([...path, key]),
          message: `unknown key "${key}"`,
          ...(hint ? { hint } : {}),
        };
      });
    }
    case 'invalid_union': {
      if (issue.discriminator !== undefined && 'options' in issue && issue.options !== undefined) {
        const input = issue.input as Record<string, unknown> | undefined;
        const found = typeof input === 'object' && input !== null ? input[issue.discriminator] : undefined;
        const close = typeof found === 'string' ? suggest(found, issue.options.map(String)) : undefined;
        return [
          {
            // zod already ends the path with the discriminator key.
            path: at,
            message: `expected ${issue.discriminator} ${quoteList(issue.options)}, got ${describeValue(found)}`,
            ...(close === undefined ? {} : { hint: `did you mean "${close}"?` }),
          },
        ];
      }
      // When exactly one branch accepted the value's shape and failed only deeper down (the mapping
      // branch for a mapping), its issues say more than "matches none of the forms".
      const candidates = issue.errors.filter((branch) => branch.every((inner) => inner.path.length > 0));
      const [only] = candidates;
      if (candidates.length === 1 && only !== undefined) {
        return only.flatMap((inner) => issueProblems(inner, path, known));
      }
      const expected = ownMessage(issue.message) ? issue.message : 'expected a different kind of value';
      return [{ path: at, message: withGot(expected, issue, path) }];
    }
    case 'invalid_type': {
      const expected = TYPE_NAMES[issue.expected] ?? issue.expected;
      return [{ path: at, message: `expected ${expected}, got ${describeValue(issue.input, path)}` }];
    }
    case 'invalid_value': {
      const found = issue.input;
      const close = typeof found === 'string' ? suggest(found, issue.values.map(String)) : undefined;
      const expected = ownMessage(issue.message) ? issue.message : `expected ${quoteList(issue.values)}`;
      return [
        {
          path: at,
          message: withGot(expected, issue, path),
          ...(close === undefined ? {} : { hint: `did you mean "${close}"?` }),
        },
      ];
    }
    case 'too_small':
    case 'too_big':
      return [{ path: at, message: sizeMessage(issue, path) }];
    case 'custom': {
      const hint: unknown = issue.params?.hint;
      const message = ownMessage(issue.message) ? withGot(issue.message, issue, path) : issue.message;
      return [{ path: at, message, ...(typeof hint === 'string' ? { hint } : {}) }];
    }
    default:
      return [{ path: at, message: withGot(issue.message, issue, path) }];
  }
}

/** Maps the issues of one `safeParse` (run with `reportInput: true` and `knownKeysErrorMap`). */
/** A problem is one readable line: a pasted megabyte in the config must not come back whole. */
const MAX_PROBLEM_TEXT = 300;

/**
 * A long list of allowed values (every alert kind) is cut in its middle, never at its end: the
 * ", got …" that says what was wrong must stay readable.
 */
function truncateKeepingGot(message: string, max: number): string {
  const at = message.lastIndexOf(', got ');
  if (message.length <= max || at < 0) return truncate(message, max);
  const got = truncate(message.slice(at), Math.floor(max / 2));
  return `${truncate(message.slice(0, at), max - got.length)}${got}`;
}

export function issuesToProblems(issues: readonly Issue[], known: KnownKeys): ConfigProblem[] {
  return issues
    .flatMap((issue) => issueProblems(issue, [], known))
    .map((problem) =>
      problem.hint === undefined && problem.message.endsWith(', got nothing')
        ? { ...problem, hint: 'this setting is required' }
        : problem,
    )
    .map((problem) => ({
      path: truncate(problem.path, MAX_PROBLEM_TEXT),
      message: truncateKeepingGot(problem.message, MAX_PROBLEM_TEXT),
      ...(problem.hint === undefined ? {} : { hint: truncate(problem.hint, MAX_PROBLEM_TEXT) }),
    }));
}

/**
 * A per-parse error map that changes no message; it records the keys each strict object knows,
 * so an unknown key can be answered with "did you mean …?".
 */
export function knownKeysErrorMap(known: KnownKeys): z.core.$ZodErrorMap {
  return (issue) => {
    if (issue.code !== 'unrecognized_keys') return undefined;
    const shape: unknown = (issue.inst?._zod.def as { shape?: unknown } | undefined)?.shape;
    if (
      typeof issue.input === 'object' &&
      issue.input !== null &&
      typeof shape === 'object' &&
      shape !== null
    ) {
      known.set(issue.input, Object.keys(shape));
    }
    return undefined;
  };
}
