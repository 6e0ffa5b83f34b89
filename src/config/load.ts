/**
 * Reads the config once at start: a YAML file (path given, `SHELFWATCH_CONFIG`, or
 * `./shelfwatch.yaml`), else the environment-only mode. Every problem found is returned, not just
 * the first, so one `shelfwatch validate` run shows everything to fix.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { interpolate } from '../config-kit/interpolate.ts';
import {
  type ConfigProblem,
  describeValue,
  issuesToProblems,
  type KnownKeys,
  knownKeysErrorMap,
} from '../config-kit/problems.ts';
import { checkWorkspaceContracts } from './contract.ts';
import { configFromEnv, ENV_VARIABLES } from './env.ts';
import { configSchema, type ShelfwatchConfig } from './schema.ts';

export type { ConfigProblem } from '../config-kit/problems.ts';
export { formatProblems } from '../config-kit/problems.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** The file looked for in the working directory when no path is given. */
export const DEFAULT_CONFIG_FILE = 'shelfwatch.yaml';

export type ConfigSource = { kind: 'file'; path: string } | { kind: 'env' };

export interface LoadConfigOptions {
  /** A config file; overrides `SHELFWATCH_CONFIG`. Relative paths are taken from `cwd`. */
  path?: string;
  /** The environment: `${VAR}` references and the environment-only mode read it (never process.env). */
  env: Env;
  /** Where `./shelfwatch.yaml` is looked for and relative paths start; default: process.cwd(). */
  cwd?: string;
  /** The config's text, read by the caller (`--config -` reads stdin); wins over `path`. */
  text?: string;
}

export type ParseResult = { ok: true; config: ShelfwatchConfig } | { ok: false; problems: ConfigProblem[] };
export type LoadConfigResult =
  | { ok: true; config: ShelfwatchConfig; source: ConfigSource }
  | { ok: false; problems: ConfigProblem[]; source?: ConfigSource };

/** Checks an already parsed (and interpolated) raw config against the schema. */
export function parseConfig(raw: unknown): ParseResult {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return {
      ok: false,
      problems: [
        {
          path: '(top level)',
          message: `expected a mapping of settings (redis, workspaces, channels, …), got ${describeValue(raw)}`,
        },
      ],
    };
  }
  const known: KnownKeys = new WeakMap();
  const result = configSchema.safeParse(raw, { reportInput: true, error: knownKeysErrorMap(known) });
  if (result.success) return { ok: true, config: result.data };
  return { ok: false, problems: issuesToProblems(result.error.issues, known) };
}

function nonEmpty(text: string | undefined): string | undefined {
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

/** A config is a few kilobytes; far more is a wrong path (a log, a disk image), not a config. */
const MAX_CONFIG_BYTES = 1024 * 1024;

export function readConfigText(file: string, shown: string): { text: string } | { problem: ConfigProblem } {
  const refuse = (message: string) => ({
    problem: { path: shown, message, hint: 'check the path given with --config or SHELFWATCH_CONFIG' },
  });
  try {
    // Only regular files: /dev/zero never ends and a FIFO with no writer never answers.
    const stat = statSync(file);
    if (stat.isDirectory()) return refuse('expected a readable config file, got a directory');
    if (!stat.isFile()) return refuse('expected a regular config file, got a device, pipe or socket');
    if (stat.size > MAX_CONFIG_BYTES) {
      return refuse(`expected a config file of at most 1 MiB, got ${stat.size} bytes`);
    }
    return { text: readFileSync(file, 'utf8') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const found =
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory' : `an error (${code})`;
    return {
      problem: {
        path: shown,
        message: `expected a readable config file, got ${found}`,
        hint: 'check the path given with --config or SHELFWATCH_CONFIG',
      },
    };
  }
}

/**
 * A config's YAML text as plain values, before `${VAR}` and the schema: duplicate keys, syntax
 * errors (with line and column) and alias bombs are problems. `shown` names the text in messages.
 */
export function parseYamlText(
  text: string,
  shown: string,
): { ok: true; value: unknown } | { ok: false; problems: ConfigProblem[] } {
  const lines = new LineCounter();
  const doc = parseDocument(text, {
    lineCounter: lines,
    prettyErrors: false,
    uniqueKeys: true,
    merge: true,
  });
  if (doc.errors.length > 0) {
    const problems = doc.errors.map((error): ConfigProblem => {
      const { line, col } = lines.linePos(error.pos[0]);
      return {
        path: `${shown}:${line}:${col}`,
        message: `invalid YAML at line ${line}, column ${col}: ${error.message.split('\n')[0]}`,
        hint: 'check indentation, quotes and the ":" after each key around that line',
      };
    });
    return { ok: false, problems };
  }
  let parsed: unknown;
  try {
    parsed = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    // The yaml package refuses alias bombs ("billion laughs") here instead of expanding them.
    return {
      ok: false,
      problems: [
        {
          path: shown,
          message: `expected plain YAML, got ${error instanceof Error ? error.message.split('\n')[0] : 'an unreadable document'}`,
          hint: 'use fewer YAML aliases (*name); a config rarely needs any',
        },
      ],
    };
  }
  if (parsed === null || parsed === undefined) {
    return {
      ok: false,
      problems: [{ path: shown, message: 'expected settings (at least "workspaces"), got an empty file' }],
    };
  }
  return { ok: true, value: parsed };
}

/** `shown` is the path as the user wrote it, for messages; `file` is resolved. */
function loadFile(file: string, shown: string, env: Env, given?: string): LoadConfigResult {
  const source: ConfigSource = { kind: 'file', path: file };
  const read = given === undefined ? readConfigText(file, shown) : { text: given };
  if ('problem' in read) return { ok: false, problems: [read.problem], source };
  if (read.text.length > MAX_CONFIG_BYTES) {
    return { ok: false, problems: [{ path: shown, message: 'expected a config of at most 1 MiB' }], source };
  }
  const yaml = parseYamlText(read.text, shown);
  if (!yaml.ok) return { ok: false, problems: yaml.problems, source };
  const parsed = yaml.value;
  const interpolated = interpolate(parsed, env);
  const checked = parseConfig(connectionFromEnv(interpolated.value, env));
  if (checked.ok && interpolated.problems.length === 0) {
    const config = relativeToFile(checked.config, file);
    const contractProblems = checkWorkspaceContracts(config);
    if (contractProblems.length > 0) return { ok: false, problems: contractProblems, source };
    return { ok: true, config, source };
  }
  // A missing variable was replaced by "", so the schema's complaint at that path says nothing new.
  const schemaProblems = checked.ok
    ? []
    : checked.problems.filter((p) => !interpolated.problemPaths.has(p.path));
  return { ok: false, problems: [...interpolated.problems, ...schemaProblems], source };
}

/**
 * The paths in a raw document (an outbox's `dir`, a workspace's `api.contract`) made absolute from
 * the file's folder, as `relativeToFile` does for a checked config: a stored revision is read by
 * processes started anywhere. Everything else is returned as it was.
 */
export function anchorDocument(raw: unknown, file: string): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  const doc = raw as Record<string, unknown>;
  const from = (value: unknown) =>
    typeof value === 'string' && value !== '' && !value.includes('${')
      ? resolve(dirname(file), value)
      : value;
  const items = (list: unknown, map: (item: Record<string, unknown>) => Record<string, unknown>) =>
    Array.isArray(list)
      ? list.map((item) =>
          typeof item === 'object' && item !== null ? map(item as Record<string, unknown>) : item,
        )
      : list;
  const out: Record<string, unknown> = { ...doc };
  if ('channels' in doc)
    out.channels = items(doc.channels, (c) =>
      c.type === 'outbox' && 'dir' in c ? { ...c, dir: from(c.dir) } : c,
    );
  if ('workspaces' in doc)
    out.workspaces = items(doc.workspaces, (ws) => {
      const api = ws.api;
      if (typeof api !== 'object' || api === null || !('contract' in api)) return ws;
      return { ...ws, api: { ...api, contract: from((api as Record<string, unknown>).contract) } };
    });
  return out;
}

/**
 * The connection the environment names wins over the file's (12-factor: a container's REDIS_URL is
 * where its Redis is, whatever the file it was given says); the table in docs/configuration.md.
 */
function connectionFromEnv(value: unknown, env: Env): unknown {
  const url = env.REDIS_URL?.trim();
  if (url === undefined || url === '' || typeof value !== 'object' || value === null || Array.isArray(value))
    return value;
  const raw = value as Record<string, unknown>;
  const redis = typeof raw.redis === 'object' && raw.redis !== null ? raw.redis : {};
  return { ...raw, redis: { ...redis, url } };
}

/** An outbox `dir: ./outbox` means next to the config file, wherever the process was started. */
function relativeToFile(config: ShelfwatchConfig, file: string): ShelfwatchConfig {
  const channels = config.channels.map((channel) =>
    channel.type === 'outbox' ? { ...channel, dir: resolve(dirname(file), channel.dir) } : channel,
  );
  const workspaces = config.workspaces.map((ws) =>
    ws.api === undefined
      ? ws
      : { ...ws, api: { ...ws.api, contract: resolve(dirname(file), ws.api.contract) } },
  );
  return { ...config, channels, workspaces };
}

function loadEnv(env: Env): LoadConfigResult {
  const source: ConfigSource = { kind: 'env' };
  const fromEnv = configFromEnv(env);
  if (fromEnv === undefined) {
    return {
      ok: false,
      problems: [
        {
          path: '(config)',
          message: `expected a config file or the environment-only variables (${ENV_VARIABLES.slice(0, 2).join(', ')}, …), got neither`,
          hint: `pass --config FILE, set SHELFWATCH_CONFIG, create ./${DEFAULT_CONFIG_FILE}, or set PUBLISHING_API_BASE_URL, PUBLISHING_API_KEY and SHELFWATCH_ASINS`,
        },
      ],
    };
  }
  const checked = parseConfig(fromEnv.raw);
  if (checked.ok) return { ok: true, config: checked.config, source };
  const problems = checked.problems.map((problem) => ({
    ...problem,
    path: fromEnv.variableFor(problem.path) ?? problem.path,
  }));
  return { ok: false, problems, source };
}

export function loadConfig(options: LoadConfigOptions): LoadConfigResult {
  const cwd = options.cwd ?? process.cwd();
  // Relative paths in a piped config (an outbox dir) start where the command runs.
  if (options.text !== undefined)
    return loadFile(resolve(cwd, '(stdin)'), '(stdin)', options.env, options.text);
  const given = nonEmpty(options.path) ?? nonEmpty(options.env.SHELFWATCH_CONFIG);
  if (given !== undefined) return loadFile(resolve(cwd, given), given, options.env);
  const discovered = resolve(cwd, DEFAULT_CONFIG_FILE);
  if (existsSync(discovered)) return loadFile(discovered, DEFAULT_CONFIG_FILE, options.env);
  return loadEnv(options.env);
}
