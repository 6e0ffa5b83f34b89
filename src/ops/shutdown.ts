import type { Logger } from 'pino';

type Release = () => Promise<void> | void;

/**
 * Shutdown as a list of releases, run in reverse order of acquisition (workers before the queues
 * they use, queues before the Redis connection). Each release gets its own time limit so one stuck
 * close (a BullMQ worker waiting on a job forever) cannot keep the process alive.
 */
export class Shutdown {
  private readonly releases: { name: string; release: Release }[] = [];
  private readonly controller = new AbortController();
  private running: Promise<void> | undefined;

  constructor(private readonly logger: Logger) {}

  /** Aborted when a release overruns its time (and at the very end): pass it into every fetch and wait. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  add(name: string, release: Release): void {
    this.releases.push({ name, release });
  }

  run(timeoutMs = 10_000): Promise<void> {
    this.running ??= this.runReleases(timeoutMs);
    return this.running;
  }

  /** SIGTERM / SIGINT start the shutdown once; a second signal exits at once. */
  onSignals(exit: (code: number) => void = (code) => process.exit(code), timeoutMs = 10_000): void {
    const handler = (signal: NodeJS.Signals) => {
      if (this.running !== undefined) {
        this.logger.warn({ signal }, 'second signal: exiting now');
        exit(1);
        return;
      }
      this.logger.info({ signal }, 'shutting down');
      void this.run(timeoutMs).then(() => exit(0));
    };
    process.once('SIGTERM', handler);
    process.once('SIGINT', handler);
  }

  /**
   * Releases run one by one, each given `timeoutMs` to finish on its own (a worker's close waits
   * for its active jobs: graceful). Only when one overruns is the shared signal aborted, which ends
   * in-flight fetches so the release can complete; after a short grace it is left behind.
   */
  private async runReleases(timeoutMs: number): Promise<void> {
    for (const { name, release } of [...this.releases].reverse()) {
      const done = Promise.resolve()
        .then(release)
        .then(
          () => 'done' as const,
          (error: unknown) => {
            this.logger.error({ release: name, err: error }, 'release failed');
            return 'done' as const;
          },
        );
      if ((await withTimeout(done, timeoutMs)) === 'done') continue;
      this.logger.warn({ release: name, timeoutMs }, 'release overran its time; aborting in-flight work');
      this.controller.abort(new Error('shutdown timed out'));
      if ((await withTimeout(done, ABORT_GRACE_MS)) === 'timeout') {
        this.logger.warn({ release: name }, 'release still running after abort; moving on');
      }
    }
    this.controller.abort(new Error('shut down'));
  }
}

/** After aborting, how long a release may take to notice before shutdown moves on without it. */
const ABORT_GRACE_MS = 2_000;

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
