/** Exports: spreadsheet-safe CSV, JSON, rank rows hourly then daily, alerts paged without loss. */
import { describe, expect, it } from 'vitest';
import { AlertLog, alertLogEntries } from '../../src/history/alert-log.ts';
import { encodeExport, exportNotice, exportRows } from '../../src/history/export.ts';
import { BSR_SERIES, compSeries, RedisHistoryStore } from '../../src/history/store.ts';
import { csvLine } from '../../src/util/csv.ts';
import { makeAlert } from '../deliver/pipeline-harness.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const DAY0 = Date.parse('2026-03-01T00:00:00Z');
const prefix = testPrefix('export');
const redis = testRedis(prefix);

async function text(chunks: AsyncIterable<string>): Promise<string> {
  let out = '';
  for await (const chunk of chunks) out += chunk;
  return out;
}

describe('exports', () => {
  it('escapes formula cells and quotes commas, quotes and line breaks', () => {
    expect(
      csvLine(['=HYPERLINK("x")', '+1', '-2+3', '@SUM(A1)', ' =1', 'a,b', 'say "hi"', 'x\ny', -5, null]),
    ).toBe(`"'=HYPERLINK(""x"")",'+1,'-2+3,'@SUM(A1),' =1,"a,b","say ""hi""","x\ny",-5,\r\n`);
  });

  it('streams a book hourly inside the window and a row a day before it, comps named by ASIN', async () => {
    const book = { workspace: 'ws', asin: 'B0EXPORT01', marketplace: 'US' };
    const store = new RedisHistoryStore({ redis, prefix, hourlyMs: 2 * DAY });
    const hours = (day: number, rank: number) =>
      Array.from({ length: 24 }, (_, h) => ({ at: day + h * HOUR, rank }));
    await store.record(
      book,
      [
        { series: BSR_SERIES, points: [...hours(DAY0, 500), ...hours(DAY0 + DAY, 400)] },
        { series: '=cmd|calc', points: hours(DAY0 + DAY, 7) },
        { series: compSeries('B0COMP0001'), points: hours(DAY0, 900) },
      ],
      DAY0 + 2 * DAY,
    );
    const now = DAY0 + 3 * DAY + 2 * HOUR;
    expect(await store.compact(book, now)).toBe(1);
    const sources = {
      history: store,
      alertLog: new AlertLog(redis, prefix, { maxEntries: 10, retentionMs: DAY }, () => now),
      alertRetentionMs: DAY,
    };
    const request = {
      table: 'ranks' as const,
      books: [book],
      workspaces: ['ws'],
      range: { fromMs: DAY0, toMs: now },
    };
    const csv = await text(encodeExport('csv', 'ranks', exportRows(request, sources)));
    const lines = csv.trimEnd().split('\r\n');
    expect(lines[0]).toBe('workspace,asin,marketplace,series,name,at,resolution,rank,day_best,day_worst');
    expect(lines).toContain('ws,B0EXPORT01,US,bsr,,2026-03-01,day,500,500,500');
    expect(lines).toContain('ws,B0EXPORT01,US,comp,B0COMP0001,2026-03-01,day,900,900,900');
    expect(lines).toContain('ws,B0EXPORT01,US,bsr,,2026-03-02T05:00:00.000Z,hour,400,,');
    expect(lines).toContain("ws,B0EXPORT01,US,keyword,'=cmd|calc,2026-03-02T00:00:00.000Z,hour,7,,");
    expect(lines).toHaveLength(1 + 2 + 48);
    const json = JSON.parse(
      await text(encodeExport('json', 'ranks', exportRows(request, sources), 'a note')),
    );
    expect(json.notice).toBe('a note');
    expect(json.rows).toHaveLength(50);
    expect(json.rows[0]).toMatchObject({ asin: 'B0EXPORT01', resolution: expect.any(String) });
    expect(exportNotice('ranks', sources, { fromMs: now - 800 * DAY, toMs: now }, now)).toMatch(
      /history is kept for 730 days: nothing before \d{4}-\d{2}-\d{2} exists/,
    );
    expect(exportNotice('ranks', sources, request.range, now)).toBeUndefined();
  });

  it('pages the alert log oldest first without losing alerts that share a millisecond', async () => {
    const log = new AlertLog(
      redis,
      `${prefix}:ties`,
      { maxEntries: 5_000, retentionMs: 10 * DAY },
      () => 1_800_000_000_000,
    );
    // 1,200 alerts over four milliseconds: page boundaries fall inside a millisecond.
    const alerts = Array.from({ length: 1_200 }, (_, i) => ({
      alert: makeAlert(i, { observedAt: 1_800_000_000_000 + Math.floor(i / 300) }),
      channels: ['a'],
    }));
    await log.record(alerts);
    const seen: string[] = [];
    for await (const entry of alertLogEntries(log, { fromMs: 0, toMs: 2_000_000_000_000 }))
      seen.push(entry.fingerprint);
    expect(seen).toHaveLength(1_200);
    expect(new Set(seen).size).toBe(1_200);
  });
});
