import type { Queue } from 'bullmq';
import type { DeliverQueueData } from '../../src/deliver/enqueue.ts';
import type { PollJobData } from '../../src/poll/processor.ts';
import type { ChannelReport } from './deliveries.ts';
import { deliverState, type GroupLeft, pendingTotal, pollLeftovers } from './inspect.ts';
import { sleep } from './rng.ts';

/**
 * Waits, after the faults stopped, until every expected alert, health pair and channel-disabled
 * notice is through and nothing is pending (deliver jobs, group buffers of healthy channels, parked
 * polls), on two checks 3 s apart so late duplicates show up too. Returns what was still missing at
 * the deadline, and the poll queue's leftovers at the last check (taken while the workers run).
 */
export async function settle(o: {
  deadlineMs: number;
  reports: () => ChannelReport[];
  /** Every shard's queues. */
  deliverQueues: readonly Queue<DeliverQueueData>[];
  pollQueues: readonly Queue<PollJobData>[];
  groups: () => Promise<GroupLeft[]>;
}): Promise<{ waitingFor: string[]; pollLeft: string[] }> {
  const start = Date.now();
  let quietChecks = 0;
  for (;;) {
    const state = await deliverState(o.deliverQueues);
    const groups = await o.groups();
    const pollLeft = (await Promise.all(o.pollQueues.map((q) => pollLeftovers(q, Date.now())))).flat();
    const waitingFor = [
      ...o
        .reports()
        .flatMap((r) => [
          ...r.losses.map((l) => `${r.channel}: ${l}`),
          ...(r.channelDisabled === 0 ? [`${r.channel}: the channel-disabled notice`] : []),
          ...r.healthUnpaired.map((h) => `${r.channel}: health pair ${h}`),
        ]),
      ...(pendingTotal(state.pending) > 0 ? [`deliver jobs pending ${JSON.stringify(state.pending)}`] : []),
      ...groups.filter((g) => g.channel !== 'dead').map((g) => `group ${g.hash} of ${g.channel}`),
      ...pollLeft,
    ];
    quietChecks = waitingFor.length === 0 ? quietChecks + 1 : 0;
    if (quietChecks >= 2 || Date.now() - start > o.deadlineMs) return { waitingFor, pollLeft };
    await sleep(quietChecks === 1 ? 3_000 : 1_000);
  }
}
