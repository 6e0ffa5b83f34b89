import type { Job, Queue } from 'bullmq';
import type { DeliverQueueData } from '../../src/deliver/enqueue.ts';
import type { Alert } from '../../src/model/alert.ts';
import type { RequestLogEntry } from '../../src/sim/index.ts';
import type { GroupLeft } from './inspect.ts';

const iso = (ms: number | undefined): string => (ms === undefined ? '-' : new Date(ms).toISOString());

async function describeJob(queue: Queue<DeliverQueueData>, id: string): Promise<string> {
  const job: Job | undefined = await queue.getJob(id);
  if (job === undefined) return `${id}: no such job`;
  const deferrals = (job.data as { deferrals?: number }).deferrals ?? 0;
  return [
    `${id}: ${await job.getState()}`,
    `attempts made ${job.attemptsMade}, started ${job.attemptsStarted}, stalled ${job.stalledCounter}, deferrals ${deferrals}`,
    `created ${iso(job.timestamp)}, processed ${iso(job.processedOn)}, finished ${iso(job.finishedOn)}`,
    `returned ${JSON.stringify(job.returnvalue)}${job.failedReason ? `, failed: ${job.failedReason}` : ''}`,
  ].join('; ');
}

/**
 * For a group of a healthy channel left holding alerts: its due time, and for each alert its
 * admission job (which flush it scheduled) and that flush job's history. This is the evidence a
 * stuck group needs.
 */
export async function explainGroups(
  queue: Queue<DeliverQueueData>,
  groups: readonly GroupLeft[],
): Promise<string[]> {
  const lines: string[] = [];
  for (const group of groups) {
    lines.push(`group ${group.hash} (${group.channel}): due ${group.due ?? 'none'}`);
    if (group.due !== null)
      lines.push(`  due job ${await describeJob(queue, `flush.${group.hash}.${group.due}`)}`);
    const held: [string, Alert[]][] = [
      ['buffered', group.buffered],
      ...[...group.inflight].map(([jobId, alerts]): [string, Alert[]] => [`in flight of ${jobId}`, alerts]),
    ];
    for (const [where, alerts] of held) {
      for (const alert of alerts) {
        const admitId = `dlv.${alert.fingerprint}.${group.channel}`;
        lines.push(`  ${where}: ${alert.title}`);
        lines.push(`    admit ${await describeJob(queue, admitId)}`);
        const admitted = (await queue.getJob(admitId))?.returnvalue as { flushAt?: number } | undefined;
        if (admitted?.flushAt !== undefined)
          lines.push(`    flush ${await describeJob(queue, `flush.${group.hash}.${admitted.flushAt}`)}`);
      }
    }
  }
  return lines;
}

/** The requests of the busiest 60 s window, oldest first: bunched arrivals or a real overspend. */
export function busiestWindowRequests(entries: readonly RequestLogEntry[], windowMs = 60_000): string[] {
  const sorted = [...entries].sort((a, b) => Date.parse(a.real_time) - Date.parse(b.real_time));
  let best: [number, number] = [0, 0];
  let start = 0;
  for (let end = 0; end < sorted.length; end += 1) {
    const at = (i: number) => Date.parse(sorted[i]?.real_time ?? '');
    while (at(end) - at(start) >= windowMs) start += 1;
    if (end - start > best[1] - best[0]) best = [start, end];
  }
  return sorted
    .slice(best[0], best[1] + 1)
    .map(
      (e) =>
        `${e.real_time} ${e.path} ${e.status ?? 'reset'}${e.fault === null ? '' : ` (${e.fault})`}${e.counted ? '' : ' not counted'}`,
    );
}

/** The longest stall of this process's event loop (it hosts the simulator, whose arrival times the budget check reads). */
export function loopLagMonitor(): { maxMs(): number; stop(): void } {
  let max = 0;
  let last = Date.now();
  const timer = setInterval(() => {
    max = Math.max(max, Date.now() - last - 100);
    last = Date.now();
  }, 100);
  return { maxMs: () => max, stop: () => clearInterval(timer) };
}
