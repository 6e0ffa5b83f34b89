/** The per-row result of an invite run: what happened to each row of the file, and the totals. */
import type { Batch } from './batches.ts';
import type { ReaderFile } from './readers.ts';
import type { BatchOutcome } from './send.ts';

export type RowStatus = 'invited' | 'already_invited' | 'invalid' | 'not_sent';

export interface RowResult {
  row: number;
  email: string;
  status: RowStatus;
  /** The batch the row was (or would have been) sent in; absent for invalid rows. */
  batch?: number;
  inviteId?: string;
  reason?: string;
}

export interface InviteSummary {
  invited: number;
  alreadyInvited: number;
  invalid: number;
  notSent: number;
  batches: number;
  batchesSent: number;
}

function invalidRows(file: ReaderFile): RowResult[] {
  return file.invalid.map(({ row, email, reason }) => ({ row, email, status: 'invalid', reason }));
}

function byRow(rows: RowResult[]): RowResult[] {
  return rows.sort((a, b) => a.row - b.row);
}

function rowsOfOutcome(outcome: BatchOutcome): RowResult[] {
  const { batch } = outcome;
  if (outcome.status === 'not_sent') {
    return batch.readers.map(({ row, email }) => {
      const own = outcome.rowReasons?.get(row);
      return own === undefined
        ? { row, email, status: 'not_sent', batch: batch.number, reason: outcome.reason }
        : { row, email, status: 'invalid', batch: batch.number, reason: own };
    });
  }
  const answers = new Map<string, ArcAnswer>();
  for (const item of outcome.answer.data) {
    const key = item.email.toLowerCase();
    if (!answers.has(key)) answers.set(key, item);
  }
  return batch.readers.map(({ row, email }): RowResult => {
    const answer = answers.get(email.toLowerCase());
    if (answer === undefined) {
      return {
        row,
        email,
        status: 'not_sent',
        batch: batch.number,
        reason: "the API's answer did not list this reader",
      };
    }
    const base = { row, email, batch: batch.number, inviteId: answer.invite_id };
    if (answer.status === 'already_invited') return { ...base, status: 'already_invited' };
    // The API repeats its first answer to a repeated key: "invited" then means invited by that earlier run.
    return outcome.firstAnswer
      ? { ...base, status: 'invited' }
      : { ...base, status: 'already_invited', reason: 'invited by an earlier run' };
  });
}

type ArcAnswer = Extract<BatchOutcome, { status: 'sent' }>['answer']['data'][number];

export function rowResults(file: ReaderFile, outcomes: readonly BatchOutcome[]): RowResult[] {
  return byRow([...invalidRows(file), ...outcomes.flatMap(rowsOfOutcome)]);
}

/** What a dry run reports: every valid row with the batch it would go in, nothing sent. */
export function dryRunResults(file: ReaderFile, batches: readonly Batch[]): RowResult[] {
  const planned = batches.flatMap((batch) =>
    batch.readers.map(
      ({ row, email }): RowResult => ({
        row,
        email,
        status: 'not_sent',
        batch: batch.number,
        reason: 'dry run',
      }),
    ),
  );
  return byRow([...invalidRows(file), ...planned]);
}

export function summarize(
  rows: readonly RowResult[],
  outcomes: readonly BatchOutcome[],
  batches: number,
): InviteSummary {
  const count = (status: RowStatus) => rows.filter((r) => r.status === status).length;
  return {
    invited: count('invited'),
    alreadyInvited: count('already_invited'),
    invalid: count('invalid'),
    notSent: count('not_sent'),
    batches,
    batchesSent: outcomes.filter((o) => o.status === 'sent').length,
  };
}
