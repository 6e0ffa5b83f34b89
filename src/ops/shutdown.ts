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

  /** Aborted when shutdown starts: pass it into every fetch and wait. */
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

  private async runReleases(timeoutMs: number): Promise<void> {
    this.controller.abort(new Error('shutting down'));
    for (const { name, release } of [...this.releases].reverse()) {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs);
      });
      try {
        const result = await Promise.race([Promise.resolve().then(release), timedOut]);
        if (result === 'timeout')
          this.logger.warn({ release: name, timeoutMs }, 'release timed out; moving on');
      } catch (error) {
        this.logger.error({ release: name, err: error }, 'release failed');
      } finally {
        clearTimeout(timer);
      }
    }
  }
}
