// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
/**
 * `${VAR}` and `${VAR:-default}` in the string values of the parsed YAML, read from an env map the
 * caller passes in (tests pass their own; only the CLI passes `process.env`). `$${` writes a
 * literal `${`. Keys are never interpolated: they are the config's structure, not its data.
 */
import { type ConfigProblem, formatPath } from './problems.ts';

type Env = Readonly<Record<string, string | undefined>>;

// `$${` first, so an escaped reference is consumed before it could be read as one.
const TOKEN = /\$\$\{|\$\{([^}]*)\}|\$\{/g;
const REFERENCE = /^([A-Za-z_][A-Za-z0-9_]*)(?::-([\s\S]*))?$/;

export interface Interpolated {
  value: unknown;
  problems: ConfigProblem[];
  /** Config paths of the problems, so schema complaints about the same spot can be dropped. */
  problemPaths: Set<string>;
}

function interpolateString(text: string, env: Env, at: string, problems: ConfigProblem[]): string {
  return text.replace(TOKEN, (match: string, inner: string | undefined) => {
    if (match === '$${') return '${';
    if (inner === undefined) {
      problems.push({
        path: at,
        message: 'expected "${NAME}" or "${NAME:-default}", got a "${" without its closing "}"',
        hint: 'write "$${" for a literal "${"',
      });
      return match;
    }
    const reference = REFERENCE.exec(inner.trim());
    if (reference === null) {
      problems.push({
        path: at,
        message: `expected "\${NAME}" or "\${NAME:-default}" with NAME of letters, digits and "_", got "${match}"`,
        hint: 'write "$${" for a literal "${"',
      });
      return match;
    }
    const [, name = '', fallback] = reference;
    const value = env[name];
    // Like the shell's ":-", an empty variable takes the default too.
    if (fallback !== undefined) return value === undefined || value === '' ? fallback : value;
    if (value === undefined) {
      problems.push({
        path: at,
        message: `expected environment variable ${name} to be set (used here as \${${name}}), got nothing`,
        hint: `set ${name}, or give a default: \${${name}:-value}`,
      });
      return '';
    }
    return value;
  });
}

function walk(value: unknown, env: Env, path: PropertyKey[], problems: ConfigProblem[]): unknown {
  if (typeof value === 'string') return interpolateString(value, env, formatPath(path), problems);
  if (Array.isArray(value)) return value.map((item, index) => walk(item, env, [...path, index], problems));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, walk(item, env, [...path, key], problems)]),
    );
  }
  return value;
}

/** Returns a new value with every reference replaced; the input is not modified. */
export function interpolate(value: unknown, env: Env): Interpolated {
  const problems: ConfigProblem[] = [];
  const result = walk(value, env, [], problems);
  return { value: result, problems, problemPaths: new Set(problems.map((problem) => problem.path)) };
}
