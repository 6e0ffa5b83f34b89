/**
 * A job must wait (the request budget, a 429's Retry-After, quiet hours, a channel's pacing): the
 * job wrapper (`run-job.ts`) parks it as a delayed job. A deferral never costs a job attempt, and
 * nothing the job owns changes. This module imports nothing, so processors in any folder throw it
 * without depending on the rest of the jobs room.
 */

/** The jobs that defer; the name each gives its deferrals in logs and job events. */
export type DeferringJob = 'poll' | 'digest' | 'flush';

const ERROR_NAMES: Record<DeferringJob, string> = {
  poll: 'PollDeferredError',
  digest: 'DigestDeferredError',
  flush: 'FlushDeferredError',
};

export class DeferredError extends Error {
  // Each job kept its own name when the three classes became this one: logs and tests read it.
  override readonly name: string;
  /**
   * `counted` false for a wait that always ends by itself (a flush waiting for its channel's
   * pacing slot): only counted deferrals count towards a job's deferral limit.
   */
  readonly counted: boolean;

  constructor(
    readonly job: DeferringJob,
    readonly retryAtMs: number,
    readonly reason: string,
    options: { counted?: boolean; cause?: unknown } = {},
  ) {
    super(
      `${job} deferred until ${new Date(retryAtMs).toISOString()}: ${reason}`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = ERROR_NAMES[job];
    this.counted = options.counted ?? true;
  }
}
