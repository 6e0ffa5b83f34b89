import type { Logger } from '../ops/logger.ts';

/** How many job schedulers a queue holds now, and how many this process's config wants. */
export interface ScheduleCount {
  queue: string;
  found: number;
  wanted: number;
}

export interface ScheduleSource {
  queue: string;
  /** Schedulers in Redis (BullMQ's `getJobSchedulersCount`: one ZCARD). */
  count(): Promise<number>;
  /** Schedulers the config wants (one per target; one per digest recipient). */
  wanted(): number;
}

/**
 * Notices schedulers that vanished from Redis (a FLUSHALL, a Redis restarted without persistence,
 * keys deleted by hand): BullMQ then simply creates no more jobs, so polling stops without an
 * error. `check` (every 30 s from `startWorkers`) counts them, one ZCARD per queue, and reconciles
 * at once when any is missing, instead of at the next re-plan up to 10 minutes later; `ready`
 * fails `/readyz` while some are missing.
 */
export class ScheduleWatch {
  private checking: Promise<void> | undefined;
  /** A stretch of checks finding schedulers missing is under way (warned once, at its start). */
  private warned = false;

  constructor(
    private readonly options: {
      sources: readonly ScheduleSource[];
      reconcile: () => Promise<void>;
      logger: Logger;
    },
  ) {}

  async counts(): Promise<ScheduleCount[]> {
    return Promise.all(
      this.options.sources.map(async (source) => ({
        queue: source.queue,
        found: await source.count(),
        wanted: source.wanted(),
      })),
    );
  }

  /** Reconciles when schedulers are missing; one check at a time. */
  check(): Promise<void> {
    this.checking ??= this.checkOnce().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  /** Throws (for `/readyz`) while any queue holds fewer schedulers than the config wants. */
  async ready(): Promise<void> {
    const missing = (await this.counts()).filter((c) => c.found < c.wanted);
    if (missing.length > 0) {
      throw new Error(missing.map((c) => `${c.found} of ${c.wanted} ${c.queue} schedulers`).join(', '));
    }
  }

  private async checkOnce(): Promise<void> {
    const missing = (await this.counts()).filter((c) => c.found < c.wanted);
    if (missing.length === 0) {
      if (this.warned) this.options.logger.info('job schedulers complete again');
      this.warned = false;
      return;
    }
    // A scheduler that can never be created would otherwise warn every 30 s: once per stretch.
    const level = this.warned ? 'debug' : 'warn';
    this.options.logger[level]({ schedulers: missing }, 'job schedulers missing in Redis; reconciling now');
    this.warned = true;
    await this.options.reconcile();
  }
}
