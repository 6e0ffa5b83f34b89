/** The cheaper keyword source per workspace: series or snapshots, compared at the cadence the budget allows. */
import { describe, expect, it } from 'vitest';
import { formatPlanTable } from '../../src/cli/plan-table.ts';
import { chooseKeywordSource, keywordSourceCosts } from '../../src/poll/keyword-source.ts';
import { targetsOfWorkspace } from '../../src/poll/registry.ts';
import { planWorkspace } from '../../src/poll/schedule.ts';
import { parseOrThrow } from './engine-harness.ts';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-11-02T00:00:00Z');

function asin(i: number): string {
  return `B0${String(i).padStart(8, '0')}`;
}

function workspace(extra: Record<string, unknown>, books = 100, keywords: unknown = { top: 10 }) {
  const config = parseOrThrow({
    workspaces: [
      {
        id: 'ws',
        baseUrl: 'http://127.0.0.1:1',
        apiKey: 'sk_source_test_0123456789',
        books: Array.from({ length: books }, (_, i) => ({ asin: asin(i), keywords })),
        ...extra,
      },
    ],
  });
  return config.workspaces[0]!;
}

const sourcesOf = (ws: ReturnType<typeof workspace>) =>
  new Set(targetsOfWorkspace(ws).flatMap((t) => (t.kind === 'keywords' ? [t.source] : [])));

describe('keyword source choice', () => {
  it('compares requests a month to judge every hour, series where cheaper or equal', () => {
    expect(keywordSourceCosts(HOUR, false)).toEqual({ series: 731, snapshot: 731 });
    expect(keywordSourceCosts(6 * HOUR, true)).toEqual({ series: 122 + 30, snapshot: 731 });
    expect(chooseKeywordSource('auto', HOUR, false)).toBe('series');
    expect(chooseKeywordSource('auto', HOUR, true)).toBe('snapshot');
    expect(chooseKeywordSource('auto', 2 * HOUR, true)).toBe('series');
    // Only snapshots are fresher than the hourly series.
    expect(chooseKeywordSource('auto', 60_000, false)).toBe('snapshot');
    expect(chooseKeywordSource('snapshot', 6 * HOUR, false)).toBe('snapshot');
    expect(chooseKeywordSource('series', 60_000, true)).toBe('series');
  });

  it('takes the series for a Studio workspace of 100 books, whose budget stretches keywords past an hour', () => {
    expect(sourcesOf(workspace({ plan: 'studio' }))).toEqual(new Set(['series']));
    // A plan that never stretches: the top-N discovery makes the series the dearer one.
    expect(sourcesOf(workspace({ plan: 'custom:100000:100000000' }))).toEqual(new Set(['snapshot']));
    expect(sourcesOf(workspace({ plan: 'studio', keywordSource: 'snapshot' }))).toEqual(
      new Set(['snapshot']),
    );
  });

  it('plan shows the choice and the requests a month of each source at the planned cadence', () => {
    const ws = workspace({ plan: 'studio' }, 2);
    const plan = planWorkspace(ws, targetsOfWorkspace(ws), new Map(), 0, NOW);
    const row = plan.rows.find((r) => r.kind === 'keywords');
    const expected = keywordSourceCosts(row!.cadenceMs, true);
    expect(row?.keywordSource).toEqual({
      chosen: 'snapshot',
      seriesPerMonth: expected.series,
      snapshotPerMonth: expected.snapshot,
    });
    const table = formatPlanTable(plan);
    expect(table).toContain(
      'keyword sources (requests a month to judge every hour, at the planned cadence):',
    );
    expect(table).toContain(`  keywords/${asin(0)}/US  snapshot  (series 761, snapshots 731)`);
  });
});
