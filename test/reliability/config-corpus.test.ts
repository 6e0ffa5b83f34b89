/**
 * The bad-config corpus (fixtures/bad-configs.ts) through `loadConfig`, and a representative part
 * of it through the real `shelfwatch validate`: every file is refused with exit 2, one
 * `path: message (hint)` line per problem, no stack trace, no secret, in bounded time and memory.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ConfigProblem, formatProblems, loadConfig } from '../../src/config/load.ts';
import { type CliOutcome, runCli } from '../helpers/cli.ts';
import { BAD_CONFIGS, type BadConfig, VALID_YAML, variant } from './fixtures/bad-configs.ts';
import { crashMarkersIn, tempDir, writeIn } from './helpers.ts';

const dir = tempDir('config-corpus');
/** Values of the valid file's secret fields: no message may repeat them. */
const SECRETS = ['sk-test-123', 'secret-token', 'smtp-password'];
/** A problem line is read by a person: even a 5 MB value must not be echoed. */
const MAX_LINE = 400;

function fileOf(index: number, testCase: BadConfig): string {
  return writeIn(dir, `case-${String(index).padStart(2, '0')}.yaml`, testCase.text);
}

function matches(actual: string, expected: string | RegExp): boolean {
  return typeof expected === 'string' ? actual.includes(expected) : expected.test(actual);
}

function pathMatches(actual: string, file: string, expected: string | RegExp): boolean {
  const shown = actual.split(file).join('{file}');
  return typeof expected === 'string' ? shown === expected : expected.test(shown);
}

function describeProblems(problems: readonly ConfigProblem[]): string {
  return formatProblems(problems)
    .split('\n')
    .map((line) => `  ${line.slice(0, 300)}`)
    .join('\n');
}

/** The problem a case is about, or a failure that lists what was reported instead. */
function problemFor(testCase: BadConfig, file: string, problems: readonly ConfigProblem[]): ConfigProblem {
  const found = problems.find(
    (p) => pathMatches(p.path, file, testCase.path) && matches(p.message, testCase.message),
  );
  if (found === undefined) {
    throw new Error(
      `${testCase.name}: expected a problem at ${String(testCase.path)} with ${String(testCase.message)}, got:\n${describeProblems(problems)}`,
    );
  }
  return found;
}

function checkLines(problems: readonly ConfigProblem[]): void {
  const text = formatProblems(problems);
  const lines = text.split('\n');
  expect(lines).toHaveLength(problems.length);
  for (const line of lines) {
    expect(line.length, line.slice(0, 200)).toBeLessThanOrEqual(MAX_LINE);
    expect(line).toMatch(/^\S[^\n]*: \S/);
    for (const secret of SECRETS) expect(line).not.toContain(secret);
  }
}

describe('the corpus', () => {
  it('has at least 30 invalid configs and a valid base', () => {
    expect(BAD_CONFIGS.length).toBeGreaterThanOrEqual(30);
    expect(new Set(BAD_CONFIGS.map((c) => c.name)).size).toBe(BAD_CONFIGS.length);
    const file = writeIn(dir, 'valid.yaml', VALID_YAML);
    const result = loadConfig({ path: file, env: {} });
    expect(result.ok ? 'ok' : formatProblems(result.problems)).toBe('ok');
  });

  it('refuses a variant that does not apply, so no case silently tests the valid file', () => {
    expect(() => variant('no such text', 'x')).toThrow(/exactly once/);
  });
});

describe('loadConfig on every bad config', () => {
  it.each(BAD_CONFIGS.map((testCase, index) => [testCase.name, index, testCase] as const))(
    '%s',
    (_name, index, testCase) => {
      const file = fileOf(index, testCase);
      const started = performance.now();
      let result: ReturnType<typeof loadConfig>;
      try {
        result = loadConfig({ path: file, env: testCase.env ?? {}, cwd: dir });
      } catch (error) {
        // A thrown error reaches the CLI as a generic failure (exit 1), without path or hint.
        throw new Error(`loadConfig threw instead of returning problems: ${String(error)}`);
      }
      const ms = performance.now() - started;
      expect(ms, 'loadConfig must answer in bounded time').toBeLessThan(5_000);
      if (result.ok) throw new Error(`${testCase.name}: the config was accepted`);
      const problem = problemFor(testCase, file, result.problems);
      if (testCase.hint !== undefined) {
        expect(problem.hint ?? '(no hint)').toSatisfy((hint: string) => matches(hint, testCase.hint ?? ''));
      }
      checkLines(result.problems);
    },
  );

  it('a directory given as the config file', () => {
    const sub = join(dir, 'a-directory.yaml');
    mkdirSync(sub, { recursive: true });
    const result = loadConfig({ path: sub, env: {} });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual([
      {
        path: sub,
        message: 'expected a readable config file, got a directory',
        hint: 'check the path given with --config or SHELFWATCH_CONFIG',
      },
    ]);
  });

  it('a file that does not exist', () => {
    const missing = join(dir, 'nope', 'shelfwatch.yaml');
    const result = loadConfig({ path: missing, env: {} });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual([
      {
        path: missing,
        message: 'expected a readable config file, got no such file',
        hint: 'check the path given with --config or SHELFWATCH_CONFIG',
      },
    ]);
  });

  it('reports every problem of a file with many at once, each on its own line', () => {
    const text = variant('asin: B0CJ4XQ2ZK', 'asin: nope')
      .replace('plan: studio', 'plan: gold')
      .replace('time: "08:00"', 'time: "25:00"')
      .replace('pollConcurrency: 4', 'pollConcurrency: 0');
    const file = writeIn(dir, 'many.yaml', text);
    const result = loadConfig({ path: file, env: {} });
    if (result.ok) throw new Error('accepted');
    expect(result.problems.map((p) => p.path).sort()).toEqual(
      ['digest.time', 'workers.pollConcurrency', 'workspaces[0].books[0].asin', 'workspaces[0].plan'].sort(),
    );
    checkLines(result.problems);
  });
});

/** `shelfwatch validate --config FILE` must end in exit 2 with one clean line per problem. */
function expectRefusal(outcome: CliOutcome, shown: string): string[] {
  expect(outcome.timedOut, `validate did not finish: ${outcome.stderr.slice(0, 300)}`).toBe(false);
  expect(crashMarkersIn(outcome.stderr), outcome.stderr.slice(0, 2000)).toEqual([]);
  expect({ code: outcome.code, stdout: outcome.stdout }).toEqual({ code: 2, stdout: '' });
  const lines = outcome.stderr.replace(/\n$/, '').split('\n');
  const header = /^shelfwatch: (.*): (\d+) problems?$/.exec(lines[0] ?? '');
  expect(header?.[1], lines[0]).toBe(shown);
  expect(lines.length - 1).toBe(Number(header?.[2]));
  for (const line of lines.slice(1)) {
    expect(line.length).toBeLessThanOrEqual(MAX_LINE + 2);
    expect(line).toMatch(/^ {2}\S[^\n]*: \S/);
    for (const secret of SECRETS) expect(line).not.toContain(secret);
  }
  return lines.slice(1).map((line) => line.slice(2));
}

describe('shelfwatch validate (the CLI)', () => {
  const SPAWNED = [
    'a tab as indentation',
    'a misspelt top-level key',
    'an environment variable that is not set',
    'a Slack webhook over plain http',
    'a 5 MB file with a million-character id',
    'binary garbage',
    'a YAML bomb (billion laughs)',
  ];

  it('answers a representative part of the corpus with exit 2 and `path: message (hint)` lines', async () => {
    const cases = SPAWNED.map((name) => {
      const index = BAD_CONFIGS.findIndex((c) => c.name === name);
      const testCase = BAD_CONFIGS[index];
      if (testCase === undefined) throw new Error(`no case "${name}"`);
      return { testCase, file: fileOf(index, testCase) };
    });
    const outcomes = await Promise.all(cases.map(({ file }) => runCli(['validate', '--config', file])));
    const failures: string[] = [];
    cases.forEach(({ testCase, file }, at) => {
      const outcome = outcomes[at] as CliOutcome;
      try {
        const lines = expectRefusal(outcome, file);
        const line = lines.find((l) => {
          const colon = l.indexOf(': ');
          // The path may itself hold ": " never; YAML positions are "file:line:col".
          return (
            pathMatches(l.slice(0, colon), file, testCase.path) &&
            matches(l.slice(colon + 2), testCase.message)
          );
        });
        expect(line, lines.join('\n')).toBeDefined();
        if (testCase.hint !== undefined) expect(line).toMatch(/ \(.+\)$/);
      } catch (error) {
        failures.push(`${testCase.name}: ${(error as Error).message.slice(0, 600)}`);
      }
    });
    expect(failures).toEqual([]);
  }, 60_000);

  it('a directory and a missing file: exit 2, one line naming the path', async () => {
    const sub = join(dir, 'spawned-directory');
    mkdirSync(sub, { recursive: true });
    const missing = join(dir, 'missing.yaml');
    const [asDirectory, asMissing] = await Promise.all([
      runCli(['validate', '--config', sub]),
      runCli(['validate', '--config', missing]),
    ]);
    expect(expectRefusal(asDirectory as CliOutcome, sub)).toEqual([
      `${sub}: expected a readable config file, got a directory (check the path given with --config or SHELFWATCH_CONFIG)`,
    ]);
    expect(expectRefusal(asMissing as CliOutcome, missing)).toEqual([
      `${missing}: expected a readable config file, got no such file (check the path given with --config or SHELFWATCH_CONFIG)`,
    ]);
  }, 30_000);
});
