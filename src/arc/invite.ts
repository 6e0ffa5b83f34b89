/**
 * `arc invite` as a function: file text in, one result per row out. Parsing, batching, sending and
 * counting live in the files beside this one; the CLI only reads flags and prints.
 */
import type { Cluster, Redis } from 'ioredis';
import type { AnalyticsClient } from '../api/index.ts';
import type { KeyPrefix } from '../util/redis-keys.ts';
import { type Batch, planBatches } from './batches.ts';
import { InviteLedger } from './ledger.ts';
import { type ColumnNames, type ReaderFile, readersFromCsv } from './readers.ts';
import { dryRunResults, type InviteSummary, type RowResult, rowResults, summarize } from './report.ts';
import { type BatchOutcome, type StopCause, sendBatches } from './send.ts';

export { CsvFormatError } from './csv.ts';

export interface InvitePlan {
  campaignId: string;
  file: ReaderFile;
  batches: Batch[];
}

export interface InviteRun extends InvitePlan {
  dryRun: boolean;
  outcomes: BatchOutcome[];
  stoppedBecause: string | null;
  stopCause: StopCause | null;
  rows: RowResult[];
  summary: InviteSummary;
}

/** Reads and checks the file and cuts the batches; throws `CsvFormatError` for a file it cannot read. */
export function planInvites(campaignId: string, csvText: string, columns: ColumnNames = {}): InvitePlan {
  const file = readersFromCsv(csvText, columns);
  return { campaignId, file, batches: planBatches(campaignId, file.readers) };
}

export function dryRun(plan: InvitePlan): InviteRun {
  const rows = dryRunResults(plan.file, plan.batches);
  return {
    ...plan,
    dryRun: true,
    outcomes: [],
    stoppedBecause: null,
    stopCause: null,
    rows,
    summary: summarize(rows, [], plan.batches.length),
  };
}

export interface SendInvitesOptions {
  /** The workspace's interactive client: it waits out a full minute and may use the reserve. */
  client: AnalyticsClient;
  redis: Redis | Cluster;
  prefix: KeyPrefix;
  workspace: string;
  message?: string;
  signal?: AbortSignal;
  retryDelayMs?: number;
}

export async function sendInvites(plan: InvitePlan, options: SendInvitesOptions): Promise<InviteRun> {
  const ledger = new InviteLedger(options.redis, options.prefix, options.workspace, plan.campaignId);
  const { outcomes, stoppedBecause, stopCause } = await sendBatches(plan.batches, {
    client: options.client,
    campaignId: plan.campaignId,
    recordAnswer: (batch, answer) => ledger.record(batch, answer),
    ...(options.message === undefined ? {} : { message: options.message }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.retryDelayMs === undefined ? {} : { retryDelayMs: options.retryDelayMs }),
  });
  const rows = rowResults(plan.file, outcomes);
  return {
    ...plan,
    dryRun: false,
    outcomes,
    stoppedBecause,
    stopCause,
    rows,
    summary: summarize(rows, outcomes, plan.batches.length),
  };
}
