/**
 * Reading a user's contract file: YAML, checked strictly (zod, then checkContractFile), merged over
 * the default and compiled. Every problem names the file, the place in it and the fix.
 */
import { readFileSync, statSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { suggest } from '../../util/suggest.ts';
import { type ContractProblem, checkContractFile, checkMergedContract } from './check.ts';
import { type CompiledContract, compileContract } from './compile.ts';
import { DEFAULT_CONTRACT } from './default.ts';
import { mergeContract } from './merge.ts';
import { type ContractFile, contractFileSchema } from './schema.ts';

export type { ContractProblem } from './check.ts';

export type ContractLoad =
  | { ok: true; contract: CompiledContract; merged: ContractFile }
  | { ok: false; file: string; problems: ContractProblem[] };

function issuePath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const key of path)
    text += typeof key === 'number' ? `[${key}]` : `${text === '' ? '' : '.'}${String(key)}`;
  return text === '' ? '(top level)' : text;
}

type Shaped = { shape?: Record<string, unknown>; unwrap?: () => unknown };

function shapeOf(schema: unknown): Record<string, unknown> | undefined {
  let at = schema as Shaped | undefined;
  // Optional and nullable wrap the object; unwrap() reaches it.
  while (at !== undefined && at.shape === undefined && typeof at.unwrap === 'function')
    at = at.unwrap() as Shaped;
  return at?.shape;
}

/** Keys the strict object at `path` knows, for did-you-mean. */
function knownKeysAt(path: readonly PropertyKey[]): string[] {
  let at: unknown = contractFileSchema;
  for (const key of path) at = shapeOf(at)?.[String(key)];
  return Object.keys(shapeOf(at) ?? {});
}

type Issue = z.ZodError['issues'][number];

/**
 * A value that fits neither form of a union (a parameter given as text or as an object) says only
 * "Invalid input": the branch that got furthest (the object's own issue, e.g. its format) says more.
 */
function deepest(issue: Issue): Issue {
  if (issue.code !== 'invalid_union') return issue;
  let best: Issue = issue;
  for (const branch of issue.errors) {
    for (const inner of branch) {
      const candidate = deepest({ ...inner, path: [...issue.path, ...inner.path] } as Issue);
      if (candidate.path.length > best.path.length) best = candidate;
    }
  }
  return best;
}

function zodProblems(error: z.ZodError): ContractProblem[] {
  return error.issues.map(deepest).map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeysAt(issue.path);
      return {
        path: issuePath([...issue.path, issue.keys[0] ?? '']),
        message: `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`,
        hint: ((close) =>
          close === undefined ? `the keys here are: ${known.join(', ')}` : `did you mean "${close}"?`)(
          suggest(issue.keys[0] ?? '', known),
        ),
      };
    }
    return {
      path: issuePath(issue.path),
      message: issue.message,
      hint: 'see docs/real-api.md for what this key takes',
    };
  });
}

/** Checks and compiles a contract given as parsed YAML/JSON; `file` only names it in problems. */
export function parseContract(raw: unknown, file: string): ContractLoad {
  const parsed = contractFileSchema.safeParse(raw ?? {});
  if (!parsed.success) return { ok: false, file, problems: zodProblems(parsed.error) };
  const own = checkContractFile(parsed.data);
  if (own.length > 0) return { ok: false, file, problems: own };
  // `as const` makes the default's lists readonly; merging copies, never mutates.
  const merged = mergeContract(DEFAULT_CONTRACT as unknown as ContractFile, parsed.data);
  const conflicts = checkMergedContract(merged);
  if (conflicts.length > 0) return { ok: false, file, problems: conflicts };
  return { ok: true, contract: compileContract(merged), merged };
}

/** A contract file is a few kilobytes, like a config file: far more is a wrong path, not a contract. */
export const MAX_CONTRACT_BYTES = 1024 * 1024;

function fileProblem(file: string, message: string): ContractLoad {
  return {
    ok: false,
    file,
    problems: [
      { path: '(file)', message, hint: 'check the api.contract path (relative to the config file)' },
    ],
  };
}

/** Reads a contract file (YAML or JSON) from disk: a regular file of at most 1 MiB. */
export function loadContractFile(file: string): ContractLoad {
  let text: string;
  try {
    // Only regular files: /dev/zero never ends and a FIFO with no writer never answers.
    const stat = statSync(file);
    if (!stat.isFile())
      return fileProblem(file, 'expected a regular contract file, got a directory, device or pipe');
    if (stat.size > MAX_CONTRACT_BYTES)
      return fileProblem(file, `expected a contract file of at most 1 MiB, got ${stat.size} bytes`);
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return fileProblem(file, `cannot read it: ${reason}`);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return {
      ok: false,
      file,
      problems: [{ path: '(file)', message: `not valid YAML: ${reason}`, hint: 'fix the YAML syntax' }],
    };
  }
  return parseContract(raw, file);
}

export function formatContractProblems(load: Extract<ContractLoad, { ok: false }>): string {
  return load.problems
    .map((p) => `${load.file}: ${p.path}: ${p.message}${p.hint === undefined ? '' : ` (${p.hint})`}`)
    .join('\n');
}
