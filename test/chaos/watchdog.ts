import type { Queue } from 'bullmq';
import type { TargetKind } from '../../src/model/observation.ts';
import type { PollJobData } from '../../src/poll/processor.ts';
import { schedulerIdFor } from '../../src/poll/schedule.ts';
import type { RedisSnapshotStore } from '../../src/snapshot/store.ts';

export interface PollGap {
  targetId: string;
  /** Time since the target's last poll (ok or failed) when the gap was noticed. */
  gapMs: number;
  evidence: string[];
}

const iso = (ms: number | undefined) => (ms === undefined ? '-' : new Date(ms).toISOString());

/**
 * Watches every target's last poll time while the run goes on. A target not polled for much
 * longer than its cadence is recorded once per gap, with its job scheduler and its latest jobs:
 * the evidence of a poll chain that stopped (a scheduler whose next job was never created).
 */
export class PollWatchdog {
  readonly gaps: PollGap[] = [];
  maxGapMs = 0;
  /** Gaps by target and last poll time: one record per gap, its length updated while it lasts. */
  private readonly reported = new Map<string, PollGap>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: RedisSnapshotStore,
    private readonly queue: Queue<PollJobData>,
    private readonly workspace: string,
    private readonly targets: readonly { kind: TargetKind; id: string }[],
    private readonly reportAfterMs: number,
  ) {}

  start(everyMs: number): void {
    this.timer = setInterval(() => {
      this.running = this.running.then(() => this.check()).catch(() => {});
    }, everyMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async check(): Promise<void> {
    const now = Date.now();
    for (const { kind, id } of this.targets) {
      const { lastPollAt } = await this.store.getHealth({ workspace: this.workspace, kind, id });
      if (lastPollAt === null) continue;
      const gapMs = now - lastPollAt;
      this.maxGapMs = Math.max(this.maxGapMs, gapMs);
      const key = `${id}@${lastPollAt}`;
      const known = this.reported.get(key);
      if (known !== undefined) known.gapMs = gapMs;
      if (gapMs < this.reportAfterMs || known !== undefined) continue;
      const gap = { targetId: id, gapMs, evidence: await this.evidence(id, lastPollAt) };
      this.reported.set(key, gap);
      this.gaps.push(gap);
    }
  }

  private async evidence(targetId: string, lastPollAt: number): Promise<string[]> {
    const schedulerId = schedulerIdFor(this.workspace, targetId);
    const scheduler = await this.queue.getJobScheduler(schedulerId);
    const jobs = (
      await this.queue.getJobs(['active', 'waiting', 'delayed', 'prioritized', 'completed', 'failed'])
    )
      .filter((job) => job.repeatJobKey === schedulerId)
      .sort((a, b) => b.timestamp - a.timestamp)
      .slice(0, 6);
    const lines = [
      `${targetId}: last polled for ${iso(lastPollAt)}; scheduler next ${iso(scheduler?.next)}, every ${scheduler?.every} ms`,
    ];
    for (const job of jobs) {
      lines.push(
        `  ${job.id}: ${await job.getState()}, made ${iso(job.timestamp)}, processed ${iso(job.processedOn)}, finished ${iso(job.finishedOn)}, attempts ${job.attemptsMade}, stalled ${job.stalledCounter}${job.failedReason ? `, failed: ${job.failedReason}` : ''}`,
      );
    }
    return lines;
  }
}
