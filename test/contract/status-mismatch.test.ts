/** `status` shows the last answer per endpoint that did not fit the contract, from the targets' last errors. */
import { describe, expect, it } from 'vitest';
import type { TargetStatus, WorkspaceStatus } from '../../src/app/status.ts';
import { contractMismatchLines } from '../../src/cli/status.ts';

const NOW = Date.parse('2026-11-25T12:00:00Z');

function target(id: string, lastPollAtMs: number, lastError: string | null): TargetStatus {
  const kind = id.split('/')[0] as TargetStatus['kind'];
  return {
    id,
    kind,
    nextPollAtMs: null,
    everyMs: null,
    lastOutcome: lastError === null ? 'ok' : 'error',
    lastPollAtMs,
    consecutiveFailures: lastError === null ? 0 : 1,
    lastError,
  } as TargetStatus; // only the fields contractMismatchLines reads are relevant here
}

const mismatch = (endpoint: string, at: string) =>
  `SchemaMismatchError: ${endpoint} answered a body that does not match the contract at ${at}: expected a number (field book.bsrRank, found "n/a")`;

describe('contractMismatchLines', () => {
  it('lists the newest mismatch per endpoint, and nothing for other failures', () => {
    const ws = {
      targets: [
        target('book/B000000001/US', NOW - 60_000, mismatch('GET /v1/books/{asin}', 'result.rank.old')),
        target('book/B000000002/US', NOW - 5_000, mismatch('GET /v1/books/{asin}', 'result.rank.value')),
        target(
          'keywords/B000000001/US',
          NOW - 5_000,
          'TransientError: GET /v1/books/{asin}/keywords answered 500',
        ),
        target('sales/US', NOW - 5_000, null),
      ],
    } as WorkspaceStatus; // only targets matter to the mismatch section
    const text = contractMismatchLines(ws, NOW).join('\n');
    expect(text).toContain('do not fit the API contract');
    expect(text).toContain('GET /v1/books/{asin}');
    expect(text).toContain('book/B000000002/US');
    expect(text).toContain('at result.rank.value: expected a number (field book.bsrRank, found "n/a")');
    expect(text).not.toContain('B000000001');
    expect(text).not.toContain('keywords');
  });

  it('is empty when every answer fits', () => {
    const ws = { targets: [target('sales/US', NOW, null)] } as WorkspaceStatus;
    expect(contractMismatchLines(ws, NOW)).toEqual([]);
  });
});
