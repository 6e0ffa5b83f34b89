// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
/**
 * From a proposed document to what is stored, and from a stored document to the checked config a
 * process runs. Both check with the schema of `shelfwatch validate` (the same problems, paths and
 * messages). Secrets are whatever the schema reads as a `Secret` (config-kit/secret.ts), so a secret
 * field added later is sealed too; a secret is kept as a `${VAR}` reference or sealed, never in clear.
 */

import { checkWorkspaceContracts } from '../config/contract.ts';
import { parseConfig } from '../config/load.ts';
import type { ShelfwatchConfig } from '../config/schema.ts';
import { interpolate } from '../config-kit/interpolate.ts';
import type { ConfigProblem } from '../config-kit/problems.ts';
import { formatPath } from '../config-kit/problems.ts';
import { Secret } from '../config-kit/secret.ts';
import {
  hasReference,
  isObject,
  type Json,
  type JsonObject,
  mapText,
  type Path,
  textLeaves,
  toJson,
  valueAt,
} from './document.ts';
import { CONFIG_KEY_VARIABLE, isSealed, SECRET_SHOWN, type SealingKey, seal, unseal } from './sealing.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** What a process reads a document with: its environment, its key, its own `redis` section. */
export interface Reading {
  readonly env: Env;
  readonly key: SealingKey | undefined;
  /** The process's `redis` settings: where the store itself lives is never part of a revision. */
  readonly redis?: ShelfwatchConfig['redis'];
}

export type Checked = { ok: true; config: ShelfwatchConfig } | { ok: false; problems: ConfigProblem[] };

/** Opens sealed secrets, reads `${VAR}`, checks with the schema: the config this process runs. */
export function checkDocument(document: JsonObject, reading: Reading): Checked {
  const problems: ConfigProblem[] = [];
  const opened = mapText(document, (text, path) => {
    if (!isSealed(text)) return text;
    const result = unseal(text, reading.key);
    if (result.ok) return result.plain;
    problems.push({
      path: formatPath(path),
      message: `expected a secret this process can read, got ${result.reason}`,
      hint: `give every process the same ${CONFIG_KEY_VARIABLE}`,
    });
    return '';
  });
  const interpolated = interpolate(opened, reading.env);
  const raw = { ...(interpolated.value as Record<string, unknown>), redis: {} };
  const parsed = parseConfig(raw);
  const known = new Set([...problems, ...interpolated.problems].map((problem) => problem.path));
  const schemaProblems = parsed.ok ? [] : parsed.problems.filter((problem) => !known.has(problem.path));
  const all = [...problems, ...interpolated.problems, ...schemaProblems];
  if (!parsed.ok || all.length > 0) return { ok: false, problems: all };
  const contractProblems = checkWorkspaceContracts(parsed.config);
  if (contractProblems.length > 0) return { ok: false, problems: contractProblems };
  const redis = reading.redis ?? parsed.config.redis;
  return { ok: true, config: { ...parsed.config, redis } };
}

export type Prepared =
  | { ok: true; document: JsonObject; config: ShelfwatchConfig; dropped: string[] }
  | { ok: false; problems: ConfigProblem[] };

/**
 * A proposed document made storable: `[secret]` keeps the secret stored at the same place in
 * `previous`; a secret given in clear is sealed with the key (the previous sealed value is kept
 * when it holds the same text, so an unchanged secret is no change), or refused without a key.
 */
export function prepareDocument(
  proposed: unknown,
  previous: JsonObject | undefined,
  reading: Reading,
): Prepared {
  const json = toJson(proposed);
  if (!isObject(json)) {
    return {
      ok: false,
      problems: [
        {
          path: '(top level)',
          message: 'expected a mapping of settings (workspaces, channels, …) of plain YAML values',
        },
      ],
    };
  }
  // Where the store lives cannot be stored in it: each process takes `redis` from its own file or env.
  const dropped = 'redis' in json ? ['redis'] : [];
  const { redis: _redis, ...rest } = json;
  const problems: ConfigProblem[] = [];
  const kept = mapText(rest, (text, path) => {
    if (text !== SECRET_SHOWN) return text;
    const before = valueAt(previous, path);
    if (typeof before === 'string' && (isSealed(before) || hasReference(before))) return before;
    problems.push({
      path: formatPath(path),
      message: 'expected a secret or a ${VAR} reference, got "[secret]" where no secret is stored to keep',
      hint: 'write the secret itself (sealed when stored) or a ${NAME} reference',
    });
    return text;
  }) as JsonObject;
  if (problems.length > 0) return { ok: false, problems };
  const checked = checkDocument(kept, reading);
  if (!checked.ok) return checked;
  const stored = sealSecrets(kept, checked.config, previous, reading.key);
  if (!stored.ok) return stored;
  return { ok: true, document: stored.document, config: checked.config, dropped };
}

function sealSecrets(
  document: JsonObject,
  config: ShelfwatchConfig,
  previous: JsonObject | undefined,
  key: SealingKey | undefined,
): { ok: true; document: JsonObject } | { ok: false; problems: ConfigProblem[] } {
  const secretPaths = new Set(
    textLeaves(document)
      .filter((leaf) => valueAt(config, leaf.path) instanceof Secret)
      .map((leaf) => formatPath(leaf.path)),
  );
  const problems: ConfigProblem[] = [];
  const sealed = mapText(document, (text, path: Path) => {
    if (!secretPaths.has(formatPath(path)) || isSealed(text) || hasReference(text)) return text;
    if (key === undefined) {
      problems.push({
        path: formatPath(path),
        message: `expected a \${VAR} reference, got a secret in clear, and ${CONFIG_KEY_VARIABLE} is not set to seal it`,
        hint: `secrets are never stored in clear: write "\${NAME}" and set NAME in every process's environment, or set ${CONFIG_KEY_VARIABLE} (openssl rand -base64 32) to store it encrypted`,
      });
      return text;
    }
    const before = valueAt(previous, path);
    if (isSealed(before)) {
      const open = unseal(before, key);
      if (open.ok && open.plain === text) return before;
    }
    return seal(text, key);
  });
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, document: sealed as JsonObject };
}

export type { Json };
