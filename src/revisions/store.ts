/**
 * The revision store: the one truth of the configuration, in Redis. See index.ts for the API.
 */
import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import type { ShelfwatchConfig } from '../config/schema.ts';
import type { ConfigProblem } from '../config-kit/problems.ts';
import { type Change, diffDocuments, diffText, summaryOf } from './diff.ts';
import type { JsonObject } from './document.ts';
import { type RevisionKeys, revisionKeys } from './keys.ts';
import { type Management, managementText, type RevisionMeta, sameManagement, type Via } from './meta.ts';
import { checkDocument, prepareDocument, type Reading } from './prepare.ts';

export interface ProposeOptions {
  /** The revision the change was made on (0 when the store is empty): a switch happens only from it. */
  readonly basedOn: number;
  readonly by: string;
  readonly via: Via;
  readonly from: string;
  /** A file proposal over a console-managed configuration: take it over instead of refusing. */
  readonly takeOver?: boolean;
  /** Who owns the configuration after this revision; default: the file for `via: 'file'` or a
   *  CLI apply that gives `fileText`, the console for `via: 'console'`, else unchanged. */
  readonly managed?: Management;
  /** The file's text as read, remembered (as a hash) so a watcher applies a file only when it changed. */
  readonly fileText?: string;
  /** Check and diff only; nothing is stored. */
  readonly dryRun?: boolean;
  readonly rollbackOf?: number;
}

export type ProposeResult =
  | { outcome: 'stored'; meta: RevisionMeta; changes: Change[]; dropped: string[] }
  | { outcome: 'unchanged'; meta: RevisionMeta | undefined; dropped: string[] }
  | {
      outcome: 'dry-run';
      changes: Change[];
      managed: Management;
      dropped: string[];
      config: ShelfwatchConfig;
    }
  | { outcome: 'problems'; problems: ConfigProblem[] }
  | { outcome: 'conflict'; basedOn: number; current: number; message: string }
  | { outcome: 'refused'; managed: Management; message: string };

/** A process's own account of its configuration. */
export interface ProcessRevision {
  /** The revision it runs (0: its file or environment, before any revision). */
  readonly rev: number;
  /** The newest revision it could not apply, and why (it keeps running `rev`). */
  readonly failing?: { readonly rev: number; readonly reason: string };
  readonly seenAt: number;
}

export interface StoredRevision {
  readonly meta: RevisionMeta;
  /** As stored: secrets sealed (`sealed:v1:…`) or `${VAR}`; show it through `shownDocument`. */
  readonly document: JsonObject;
}

export interface CurrentRevision extends StoredRevision {
  /** The document checked in this process (secrets opened, `${VAR}` read from its environment). */
  readonly config: ShelfwatchConfig;
}

/** The stored revision this process cannot run (a variable or the key missing here): the decision is the caller's. */
export class RevisionUnusableError extends Error {
  override readonly name = 'RevisionUnusableError';
  constructor(
    readonly rev: number,
    readonly problems: readonly ConfigProblem[],
  ) {
    super(
      `revision ${rev} cannot be used here: ${problems
        .slice(0, 3)
        .map((p) => `${p.path}: ${p.message}`)
        .join('; ')}`,
    );
  }
}

export class UnknownRevisionError extends Error {
  override readonly name = 'UnknownRevisionError';
}

// KEYS: current, metas, documents, files. ARGV: basedOn, meta (JSON, rev = basedOn+1), document,
// channel, file field ('' for none), file hash. The current pointer moves last: a script cut short
// (out of memory) leaves the previous revision in force.
const SWITCH = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current ~= tonumber(ARGV[1]) then return {0, current} end
local rev = current + 1
redis.call('HSET', KEYS[3], rev, ARGV[3])
redis.call('HSET', KEYS[2], rev, ARGV[2])
if ARGV[5] ~= '' then redis.call('HSET', KEYS[4], ARGV[5], ARGV[6]) end
redis.call('SET', KEYS[1], rev)
redis.call('PUBLISH', ARGV[4], rev)
return {1, rev}
`;

export interface RevisionStoreOptions extends Omit<Reading, 'redis'> {
  readonly redis: Redis | Cluster;
  /** This process's `redis` settings, put into every revision it checks. */
  readonly processRedis?: ShelfwatchConfig['redis'];
  /** The home shard's prefix (config.redis.prefix). */
  readonly prefix: string;
  readonly now?: () => number;
}

export function textHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export class RevisionStore {
  readonly keys: RevisionKeys;
  private readonly redis: Redis | Cluster;
  private readonly reading: Reading;
  private readonly now: () => number;

  constructor(options: RevisionStoreOptions) {
    this.redis = options.redis;
    this.keys = revisionKeys(options.prefix);
    this.reading = { env: options.env, key: options.key, redis: options.processRedis };
    this.now = options.now ?? Date.now;
  }

  /** Whether secrets given in clear can be stored (sealed): only with the key. */
  get canSeal(): boolean {
    return this.reading.key !== undefined;
  }

  /** The number in force; 0 when none has been stored. */
  async currentRev(): Promise<number> {
    return Number((await this.redis.get(this.keys.current)) ?? '0');
  }

  /** The revision in force, checked for this process; undefined when none; RevisionUnusableError. */
  async current(): Promise<CurrentRevision | undefined> {
    const rev = await this.currentRev();
    if (rev === 0) return undefined;
    const stored = await this.get(rev);
    const checked = checkDocument(stored.document, this.reading);
    if (!checked.ok) throw new RevisionUnusableError(rev, checked.problems);
    return { ...stored, config: checked.config };
  }

  async get(rev: number): Promise<StoredRevision> {
    const [meta, document] = await Promise.all([
      this.redis.hget(this.keys.metas, String(rev)),
      this.redis.hget(this.keys.documents, String(rev)),
    ]);
    if (meta === null || document === null) throw new UnknownRevisionError(`no revision ${rev} is stored`);
    return { meta: JSON.parse(meta) as RevisionMeta, document: JSON.parse(document) as JsonObject };
  }

  /** Every revision's meta, newest first. */
  async history(): Promise<RevisionMeta[]> {
    const all = await this.redis.hvals(this.keys.metas);
    return all.map((text) => JSON.parse(text) as RevisionMeta).sort((a, b) => b.rev - a.rev);
  }

  /** What changed from `a` to `b` (0 = the empty document). */
  async diff(a: number, b: number): Promise<{ changes: Change[]; text: string }> {
    const [before, after] = await Promise.all([
      a === 0 ? undefined : this.get(a),
      b === 0 ? undefined : this.get(b),
    ]);
    const changes = diffDocuments(before?.document, after?.document);
    return { changes, text: diffText(changes) };
  }

  /** The hash of the text last stored from this file (`fileText`), to apply a file only when it changed. */
  async fileHash(file: string): Promise<string | undefined> {
    return (await this.redis.hget(this.keys.files, file)) ?? undefined;
  }

  async propose(document: unknown, options: ProposeOptions): Promise<ProposeResult> {
    const rev = await this.currentRev();
    const current = rev === 0 ? undefined : await this.get(rev);
    if (options.basedOn !== rev) return conflict(options.basedOn, rev);
    const prepared = prepareDocument(document, current?.document, this.reading);
    if (!prepared.ok) return { outcome: 'problems', problems: prepared.problems };
    const { dropped } = prepared;
    const was: Management = current?.meta.managed ?? { by: 'console' };
    const managed = options.managed ?? managementAfter(options, was);
    const refusal = refuse(current?.meta, managed, options);
    if (refusal !== undefined) return refusal;
    const changes = diffDocuments(current?.document, prepared.document);
    const manages = current === undefined || !sameManagement(was, managed);
    if (options.dryRun) return { outcome: 'dry-run', changes, managed, dropped, config: prepared.config };
    if (current !== undefined && changes.length === 0 && !manages) {
      if (options.fileText !== undefined)
        await this.redis.hset(this.keys.files, options.from, textHash(options.fileText));
      return { outcome: 'unchanged', meta: current.meta, dropped };
    }
    const handover =
      current !== undefined && !sameManagement(was, managed) ? `managed by ${managementText(managed)}` : '';
    const summary = [changes.length > 0 || current === undefined ? summaryOf(changes) : '', handover]
      .filter((part) => part !== '')
      .join('; ');
    const meta: RevisionMeta = {
      rev: rev + 1,
      parent: rev,
      at: new Date(this.now()).toISOString(),
      by: options.by,
      via: options.via,
      from: options.from,
      summary,
      changes: changes.length,
      managed,
      ...(options.rollbackOf === undefined ? {} : { rollbackOf: options.rollbackOf }),
    };
    const reply = (await this.redis.eval(
      SWITCH,
      4,
      this.keys.current,
      this.keys.metas,
      this.keys.documents,
      this.keys.files,
      rev,
      JSON.stringify(meta),
      JSON.stringify(prepared.document),
      this.keys.switched,
      options.fileText === undefined ? '' : options.from,
      options.fileText === undefined ? '' : textHash(options.fileText),
    )) as [number, number];
    if (reply[0] !== 1) return conflict(options.basedOn, reply[1]);
    return { outcome: 'stored', meta, changes, dropped };
  }

  /** Stores a new revision equal to `rev`'s document; the management stays as it is. */
  async rollback(rev: number, by: string, via: Via = 'cli'): Promise<ProposeResult> {
    const target = await this.get(rev);
    const basedOn = await this.currentRev();
    const current = basedOn === 0 ? undefined : await this.get(basedOn);
    return this.propose(target.document, {
      basedOn,
      by,
      via,
      from: `rollback to ${rev}`,
      rollbackOf: rev,
      managed: current?.meta.managed ?? { by: 'console' },
    });
  }

  /** What a running process says it runs (live-config.ts writes it at each check, status reads it). */
  async report(process: string, state: ProcessRevision): Promise<void> {
    await this.redis.hset(this.keys.processes, process, JSON.stringify(state));
  }

  /** Every process that reported within `withinMs`; older entries (processes gone) are dropped. */
  async processes(withinMs = 60_000): Promise<Map<string, ProcessRevision>> {
    const all = await this.redis.hgetall(this.keys.processes);
    const out = new Map<string, ProcessRevision>();
    const stale: string[] = [];
    for (const [process, text] of Object.entries(all)) {
      const state = JSON.parse(text) as ProcessRevision;
      if (this.now() - state.seenAt > withinMs) stale.push(process);
      else out.set(process, state);
    }
    if (stale.length > 0) await this.redis.hdel(this.keys.processes, ...stale);
    return out;
  }

  /**
   * Calls `listener` with each new revision's number as it is switched (pub/sub on a connection of
   * its own). Messages can be missed (a reconnect): callers also check `currentRev()` now and then.
   */
  async subscribe(listener: (rev: number) => void): Promise<() => Promise<void>> {
    const subscriber = this.redis.duplicate();
    subscriber.on('error', () => {
      // Reconnects by itself; the periodic check covers what it misses meanwhile.
    });
    subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.keys.switched) listener(Number(message));
    });
    await subscriber.subscribe(this.keys.switched);
    return async () => {
      await subscriber.quit().catch(() => subscriber.disconnect());
    };
  }
}

function conflict(basedOn: number, current: number): ProposeResult {
  return {
    outcome: 'conflict',
    basedOn,
    current,
    message: `the change was made on revision ${basedOn}, but revision ${current} is in force now: look at \`shelfwatch config diff ${basedOn} ${current}\` and make the change again on ${current}`,
  };
}

function managementAfter(options: ProposeOptions, was: Management): Management {
  if (options.via === 'file' || (options.via === 'cli' && options.fileText !== undefined))
    return { by: 'file', file: options.from };
  if (options.via === 'console') return { by: 'console' };
  return was;
}

function refuse(
  current: RevisionMeta | undefined,
  managed: Management,
  options: ProposeOptions,
): ProposeResult | undefined {
  if (current === undefined) return undefined;
  const was = current.managed;
  if (options.via === 'console' && was.by === 'file') {
    return {
      outcome: 'refused',
      managed: was,
      message: `the configuration is managed by the file ${was.file} (revision ${current.rev}): change the file, or hand it to the console with \`shelfwatch config release\``,
    };
  }
  if (managed.by === 'file' && was.by === 'console' && options.takeOver !== true) {
    return {
      outcome: 'refused',
      managed: was,
      message: `the configuration is managed in the console (revision ${current.rev}): a file replaces it only with --take-over`,
    };
  }
  return undefined;
}
