/**
 * The configuration as live, versioned data: numbered revisions in Redis, each a whole document
 * checked by the config's schema before it is stored (docs/configuration.md, "Live configuration").
 *
 *   const store = openRevisionStore({ redis, prefix: config.redis.prefix, env, processRedis: config.redis });
 *
 *   store.current()        → { meta, document, config } | undefined (nothing stored yet);
 *                            throws RevisionUnusableError (with .problems) when this process cannot
 *                            run it (a ${VAR} or SHELFWATCH_CONFIG_KEY missing here)
 *   store.currentRev()     → number in force (0: none)
 *   store.propose(document, { basedOn, by, via: 'console' | 'cli' | 'file', from, takeOver?, dryRun? })
 *                          → { outcome: 'stored', meta, changes }
 *                          | { outcome: 'unchanged', meta }                 (same document, same owner)
 *                          | { outcome: 'dry-run', changes, managed }
 *                          | { outcome: 'problems', problems }              (ConfigProblem[], as `validate`)
 *                          | { outcome: 'conflict', basedOn, current, message }  (someone switched first)
 *                          | { outcome: 'refused', managed, message }       (file-managed vs console)
 *   store.history()        → RevisionMeta[], newest first
 *   store.get(rev)         → { meta, document } (UnknownRevisionError)
 *   store.diff(a, b)       → { changes: Change[], text } (secrets as [secret]; a = 0: from nothing)
 *   store.rollback(rev, who, via?) → as propose: a new revision repeating rev's document
 *   store.subscribe(fn)    → fn(rev) on every switch; returns an unsubscribe function
 *   store.processes()    → Map of `host:pid` → { rev, failing?, seenAt }: what each process runs
 *   store.canSeal          → false without SHELFWATCH_CONFIG_KEY: offer only ${VAR} for secrets
 *   documentYaml(doc), shownDocument(doc) → a document for people: secrets as [secret]
 *
 * The document is the file's shape (the raw YAML values, not the checked config): `${VAR}` kept,
 * defaults not filled in, `redis` left out (each process takes it from its own file or env).
 * A secret (anything the schema reads as a Secret: API keys, webhook URLs, SMTP URLs, tokens) is
 * stored sealed (AES-256-GCM, SHELFWATCH_CONFIG_KEY) or as a `${VAR}` reference; a secret in clear
 * without the key is a problem. `[secret]` at a place means "keep the secret stored there", so
 * a form or an export can send it back unchanged.
 *
 * RevisionMeta: { rev, parent, at, by, via, from, summary, changes, managed, rollbackOf? } where
 * managed is { by: 'file', file } (the console shows it read-only, naming the file, and refuses
 * changes) or { by: 'console' }. A console proposal on a file-managed configuration is refused;
 * a file over a console-managed one needs takeOver.
 *
 * The switch is one Lua script: it stores the revision and moves the pointer only if the pointer
 * still is `basedOn`, then publishes the new number; a script cut short leaves the pointer.
 */
import type { Cluster, Redis } from 'ioredis';
import { redisSchema, type ShelfwatchConfig } from '../config/schema.ts';
import { sealingKeyFrom } from './sealing.ts';
import { RevisionStore } from './store.ts';

export type { Change } from './diff.ts';
export { diffText } from './diff.ts';
export type { Json, JsonObject } from './document.ts';
export { documentYaml, shownDocument } from './export.ts';
export type { Management, RevisionMeta, Via } from './meta.ts';
export { managementText } from './meta.ts';
export { CONFIG_KEY_VARIABLE, SECRET_SHOWN, SealingKeyError } from './sealing.ts';
export type {
  CurrentRevision,
  ProcessRevision,
  ProposeOptions,
  ProposeResult,
  StoredRevision,
} from './store.ts';
export { RevisionStore, RevisionUnusableError, textHash, UnknownRevisionError } from './store.ts';

export interface OpenRevisionStoreOptions {
  readonly redis: Redis | Cluster;
  /** config.redis.prefix: the home shard's. */
  readonly prefix: string;
  /** The process's environment: `${VAR}` and SHELFWATCH_CONFIG_KEY (throws SealingKeyError when malformed). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** This process's `redis` settings (config.redis), put into every revision it checks. */
  readonly processRedis?: ShelfwatchConfig['redis'];
  /** The same as a `redis` section (raw or checked), read with the schema: the first spelling of this API. */
  readonly redisSection?: unknown;
  readonly now?: () => number;
}

export function openRevisionStore(options: OpenRevisionStoreOptions): RevisionStore {
  const { redisSection, ...rest } = options;
  const processRedis = options.processRedis ?? redisFrom(redisSection);
  return new RevisionStore({
    ...rest,
    ...(processRedis === undefined ? {} : { processRedis }),
    key: sealingKeyFrom(options.env),
  });
}

function redisFrom(section: unknown): ShelfwatchConfig['redis'] | undefined {
  if (section === undefined) return undefined;
  const parsed = redisSchema.safeParse(section);
  // A checked section (runtime.config.redis) is taken as it is when it does not read again.
  return parsed.success ? parsed.data : (section as ShelfwatchConfig['redis']);
}
