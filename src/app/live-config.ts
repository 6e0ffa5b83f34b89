/**
 * Keeps a running process on the revision in force (revisions/): told of each switch by pub/sub and
 * checking every `checkEveryMs` besides, so a missed message still converges within seconds. A
 * revision this process cannot use (a `${VAR}` or the key missing here, a broken contract file)
 * is not applied: the last good one keeps running, the reason is logged once and /readyz fails
 * until a usable revision arrives.
 */
import { hostname } from 'node:os';
import type { Logger } from '../ops/logger.ts';
import { type ProcessRevision, type RevisionStore, RevisionUnusableError } from '../revisions/index.ts';
import type { Runtime } from './runtime.ts';

export interface LiveConfigOptions {
  runtime: Runtime;
  store: RevisionStore;
  logger: Logger;
  /** After a revision is in force here: reconcile the schedulers, re-plan. */
  onApplied?: (rev: number) => Promise<void>;
  checkEveryMs?: number;
}

export class LiveConfig {
  readonly process = `${hostname()}:${process.pid}`;
  private failing: { rev: number; reason: string } | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => Promise<void>) | undefined;

  constructor(private readonly options: LiveConfigOptions) {
    options.runtime.revisionInForce = () => options.store.currentRev();
  }

  get revision(): number {
    return this.options.runtime.revision;
  }

  async start(): Promise<void> {
    this.unsubscribe = await this.options.store.subscribe(() => void this.check());
    this.timer = setInterval(() => void this.check(), this.options.checkEveryMs ?? 2_000);
    this.timer.unref();
    await this.check();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.unsubscribe?.();
    await this.running?.catch(() => {});
  }

  /** One check at a time; a check asked for meanwhile runs right after (a switch during a check). */
  check(): Promise<void> {
    if (this.running !== undefined) {
      this.again = true;
      return this.running;
    }
    this.running = this.checkOnce()
      .catch((error: unknown) => this.options.logger.debug({ err: error }, 'config check failed'))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          void this.check();
        }
      });
    return this.running;
  }

  /** For /readyz: throws while the newest revision cannot be applied here. */
  readiness(): string {
    if (this.failing !== undefined)
      throw new Error(
        `config revision ${this.failing.rev} not applied (running ${this.revision}): ${this.failing.reason}`,
      );
    return `config revision ${this.revision}`;
  }

  state(): ProcessRevision {
    return {
      rev: this.revision,
      ...(this.failing === undefined ? {} : { failing: this.failing }),
      seenAt: Date.now(),
    };
  }

  private async checkOnce(): Promise<void> {
    const { runtime, store, logger } = this.options;
    const rev = await store.currentRev();
    if (rev !== 0 && rev !== runtime.revision && rev !== this.failing?.rev) {
      let applied: number | undefined;
      try {
        const current = await store.current();
        if (current !== undefined) {
          const { restartNeeded } = runtime.apply(current.config, current.meta.rev);
          applied = current.meta.rev;
          this.failing = undefined;
          const { by, via, summary } = current.meta;
          logger.info({ revision: applied, by, via, summary }, 'config revision applied');
          if (restartNeeded.length > 0)
            logger.warn({ sections: restartNeeded }, 'these settings take effect when the process restarts');
        }
      } catch (error) {
        // Redis failing to answer is retried at the next check; a revision unusable here is not.
        if (!(error instanceof RevisionUnusableError)) throw error;
        const reason = error.problems.map((p) => `${p.path}: ${p.message}`).join('; ');
        this.failing = { rev, reason };
        logger.error(
          { revision: rev, running: runtime.revision, reason },
          'config revision not applied; keeping the last good one',
        );
      }
      if (applied !== undefined)
        await this.options
          .onApplied?.(applied)
          .catch((error: unknown) =>
            logger.warn({ err: error, revision: applied }, 'reconcile after a new revision failed'),
          );
    }
    runtime.metrics.configRevision(runtime.revision, this.failing !== undefined);
    await store.report(this.process, this.state());
  }
}
