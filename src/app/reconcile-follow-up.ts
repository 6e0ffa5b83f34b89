/**
 * A cadence change is not written while its scheduler's run is due about now (jobs/schedulers.ts,
 * repeatFor's `due`): the upsert could take the run that is starting for the pending one. Left to
 * the next re-plan, the change would wait up to 10 minutes, and the old cadence with it. This
 * reconciles again just after the due run has started (the report's `retryAtMs`), so the new
 * cadence counts from that run. One timer at most; the earliest time wins.
 */
import type { ReconcileReport } from '../jobs/poll-schedulers.ts';
import type { Logger } from '../ops/logger.ts';

export class ReconcileFollowUp {
  private timer: NodeJS.Timeout | undefined;
  private atMs = Number.POSITIVE_INFINITY;
  private stopped = false;

  constructor(
    private readonly reconcile: () => Promise<unknown>,
    private readonly logger: Logger,
  ) {}

  /** Plans a reconcile at `report.retryAtMs` when the report left changes for later. */
  after(report: ReconcileReport): void {
    const at = report.retryAtMs;
    if (at === null || this.stopped || at >= this.atMs) return;
    clearTimeout(this.timer);
    this.atMs = at;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.atMs = Number.POSITIVE_INFINITY;
        this.logger.debug(
          { deferred: report.deferred },
          'reconciling the cadence changes left for a due run',
        );
        void this.reconcile().catch((error: unknown) =>
          this.logger.warn({ err: error }, 'reconcile after a due run failed'),
        );
      },
      Math.max(0, at - Date.now()),
    );
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
