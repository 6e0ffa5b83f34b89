/**
 * `run`'s part of the live configuration (docs/configuration.md, "Live configuration"): the config
 * file, when one is given, is stored as a revision whenever its text changes (at start, on change,
 * and on SIGHUP even unchanged), and the process follows the revision in force (app/live-config.ts).
 */
import { unwatchFile, watchFile } from 'node:fs';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { LiveConfig } from '../app/live-config.ts';
import type { Runtime } from '../app/runtime.ts';
import { anchorDocument, formatProblems, parseYamlText, readConfigText } from '../config/load.ts';
import { secretsIn } from '../config-kit/secret.ts';
import type { Logger } from '../ops/logger.ts';
import type { Shutdown } from '../ops/shutdown.ts';
import { openRevisionStore, type RevisionStore, textHash } from '../revisions/index.ts';

export interface LiveRunOptions {
  runtime: Runtime;
  logger: Logger;
  shutdown: Shutdown;
  env: Readonly<Record<string, string | undefined>>;
  /** The config file `run` was given (resolved), if any. */
  file: string | undefined;
  /** The logger's list of secrets to take out of lines: a new revision's secrets join it. */
  secrets: string[];
  checkEveryMs?: number;
}

export interface LiveRun {
  store: RevisionStore;
  live: LiveConfig;
  /** Starts following the store (after the workers started). */
  follow(): Promise<void>;
}

/** Stores the file as a revision when its text changed since it was last stored (or `force`). */
export async function syncConfigFile(
  store: RevisionStore,
  file: string,
  logger: Logger,
  force = false,
): Promise<void> {
  const read = readConfigText(file, file);
  if ('problem' in read) {
    logger.error(
      { file, problem: read.problem.message },
      'config file not read; the revision in force stays',
    );
    return;
  }
  if (!force && (await store.fileHash(file)) === textHash(read.text)) {
    logger.debug({ file }, 'config file unchanged since it was last stored');
    return;
  }
  const yaml = parseYamlText(read.text, file);
  if (!yaml.ok) {
    await logRefused(store, file, formatProblems(yaml.problems), logger);
    return;
  }
  // Several processes watching one file all propose it: the first stores it, the others find it stored.
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const result = await store.propose(anchorDocument(yaml.value, file), {
      basedOn: await store.currentRev(),
      by: `shelfwatch run on ${hostname()}`,
      via: 'file',
      from: file,
      fileText: read.text,
    });
    if (result.outcome === 'conflict') continue;
    if (result.outcome === 'stored')
      logger.info(
        { file, revision: result.meta.rev, summary: result.meta.summary },
        'config file stored as a revision',
      );
    else if (result.outcome === 'unchanged')
      logger.debug({ file, revision: result.meta?.rev }, 'config file matches the revision in force');
    else if (result.outcome === 'problems')
      await logRefused(store, file, formatProblems(result.problems), logger);
    else if (result.outcome === 'refused') logger.warn({ file }, result.message);
    return;
  }
}

/**
 * A file the store refused, with its problems. What runs then differs: over a revision in force,
 * that revision stays (the edit is lost: error); with none stored yet (a first file with a secret
 * in clear and no SHELFWATCH_CONFIG_KEY, say) the process runs the file as it read it at start and
 * follows none of its changes until one is stored (a warning: the process works).
 */
async function logRefused(
  store: RevisionStore,
  file: string,
  problems: string,
  logger: Logger,
): Promise<void> {
  const rev = await store.currentRev();
  if (rev === 0)
    logger.warn(
      { file, problems },
      'config file not stored as a revision: this process runs the file as read at start and follows no change to it until one is stored',
    );
  else logger.error({ file, problems, revision: rev }, `config file refused; revision ${rev} stays in force`);
}

/** Applies the revision in force now (before the workers start), then `follow()` keeps up. */
export async function startLiveRun(options: LiveRunOptions): Promise<LiveRun> {
  const { runtime, logger, shutdown, file } = options;
  const store = openRevisionStore({
    redis: runtime.redis,
    prefix: runtime.prefix,
    env: options.env,
    processRedis: runtime.config.redis,
  });
  let following = false;
  const live = new LiveConfig({
    runtime,
    store,
    logger,
    ...(options.checkEveryMs === undefined ? {} : { checkEveryMs: options.checkEveryMs }),
    onApplied: async (rev) => {
      for (const secret of secretsIn(runtime.config))
        if (!options.secrets.includes(secret)) options.secrets.push(secret);
      if (following) await reconcileNow(runtime, () => store.currentRev().then((now) => now !== rev));
    },
  });
  // The secrets of every revision this process may apply are redacted before it applies one.
  if (file !== undefined) await syncConfigFile(store, file, logger);
  await live.check();
  return {
    store,
    live,
    follow: async () => {
      following = true;
      await live.start();
      shutdown.add('live config', () => live.stop());
      if (file === undefined) return;
      const sync = (force: boolean) =>
        syncConfigFile(store, file, logger, force).catch((error: unknown) =>
          logger.warn({ err: error, file }, 'config file sync failed'),
        );
      // Polling the file's stat survives editors that replace the file (a rename) rather than write it.
      watchFile(file, { interval: 500 }, () => void sync(false));
      const onHangUp = () => {
        logger.info({ file }, 'SIGHUP: reading the config file again');
        void sync(true);
      };
      process.on('SIGHUP', onHangUp);
      shutdown.add('config file watch', () => {
        unwatchFile(file);
        process.off('SIGHUP', onHangUp);
      });
    },
  };
}

/**
 * Reconciles the schedulers with the revision just applied. Another process may hold the lock
 * (reconciling the same revision, or the one before): tried again until this one ran it, or a
 * newer revision is in force. That one is applied next and reconciles itself; trying on would only
 * keep it waiting (the reconcile refuses a plan of a revision no longer in force), which held the
 * next revision back by the whole 4 s in one change of two.
 */
async function reconcileNow(
  runtime: Runtime,
  superseded: () => Promise<boolean>,
  withinMs = 4_000,
): Promise<void> {
  const until = Date.now() + withinMs;
  for (;;) {
    const report = await runtime.reconcile();
    if (report.ranHere || Date.now() > until || (await superseded())) break;
    await sleep(200);
  }
  await runtime.reconcileDigests();
}
