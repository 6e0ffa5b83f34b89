import { describe, expect, it } from 'vitest';
import { seedRow, seedsTable } from './seeds-table.ts';

// A figures file as renderFigures writes it (seed 3's run of 2026-11-28, shortened to the rows read).
const passed = `| figure | value |
|---|---|
| seed | 3 (\`CHAOS_SEED=3 npm run test:chaos\`) |
| run | 2026-11-28T18:44:38.270Z, 192.4 s in all (chaos 167.5 s, settle 9.2 s) |
| max API requests in any 60 s | 59 sent, 50 counted by the API (limit 60; 146 requests in all) |
| longest gap between two polls of a target | 81.2 s (11 gaps over 30 s) |
| worker start-up (spawn to running) | median 7.7 s, longest 28.2 s (16 starts) |

| channel | alerts expected | delivered | duplicates | losses | invented | source health fired / recovered | channel-disabled notice | dead letters |
|---|---|---|---|---|---|---|---|---|
| slack | 12 | 12 | 2 (2 in window, 0 outside) | 0 | 0 | 1 / 1 | 1 | 0 |
| email | 12 | 12 | 0 (0 in window, 0 outside) | 0 | 0 | 1 / 1 | 1 | 0 |
| log | 12 | 12 | 0 (0 in window, 0 outside) | 0 | 0 | 1 / 1 | 1 | 0 |
| dead (Slack answering 404 all run) | 12 | held, not sent: 12 | — | — | — | — | — | 13 |

All checks passed.
`;

describe('the seeds table of docs/reliability.md', () => {
  it('reads a passing run back from its figures', () => {
    expect(seedRow(passed)).toBe(
      '| 3 | 2026-11-28T18:44:38.270Z, 192.4 s | passed | 12/12 · 12/12 · 12/12 | 0 / 0 | 2 / 0 | 59 sent, 50 counted by the API | 81.2 s | median 7.7 s, longest 28.2 s |',
    );
  });

  it('says a failed run failed, with its losses and duplicates outside the window', () => {
    const failed = passed
      .replace(
        '| email | 12 | 12 | 0 (0 in window, 0 outside) | 0 |',
        '| email | 12 | 11 | 1 (0 in window, 1 outside) | 1 |',
      )
      .replace('All checks passed.', 'Failed checks:\n- email: lost x\n- email: duplicate y');
    const row = seedRow(failed);
    expect(row).toContain('| **failed** (2 checks) | 12/12 · 11/12 · 12/12 | 1 / 0 | 2 / 1 |');
  });

  it('has a row per run under one header', () => {
    expect(seedsTable([passed, passed]).split('\n')).toHaveLength(4);
  });
});
