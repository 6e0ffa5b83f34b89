/** `shelfwatch export`: the real CLI over a real Redis, CSV and JSON, a range beyond what is kept. */
import { beforeAll, describe, expect, it } from 'vitest';
import { AlertLog } from '../../src/history/alert-log.ts';
import { BSR_SERIES, RedisHistoryStore } from '../../src/history/store.ts';
import { tempDir } from '../config/helpers.ts';
import { makeAlert } from '../deliver/pipeline-harness.ts';
import { CLI_TEST_TIMEOUT_MS, shelfwatch, writeConfig } from '../helpers/cli.ts';
import { redisUrl, testPrefix, testRedis } from '../helpers/redis.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const prefix = testPrefix('export-cli');
const redis = testRedis(prefix);
const dir = tempDir();
const ASIN = 'B0EXPORTCL';
let configFile: string;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

beforeAll(async () => {
  configFile = writeConfig(dir, 'export.yaml', {
    redis: { url: redisUrl(), prefix },
    workspaces: [
      {
        id: 'acme',
        baseUrl: 'http://127.0.0.1:9',
        apiKey: 'sk_unused_export',
        books: [{ asin: ASIN, marketplaces: ['US', 'UK'] }],
      },
    ],
  });
  const now = Date.now();
  const store = new RedisHistoryStore({ redis, prefix });
  const book = { workspace: 'acme', asin: ASIN, marketplace: 'US' };
  await store.record(book, [{ series: BSR_SERIES, points: [{ at: now - 2 * HOUR, rank: 12_345 }] }], now);
  await store.recordSales(
    'acme',
    [
      {
        asin: ASIN,
        marketplace: 'US',
        date: day(now - DAY),
        units: 3,
        royalties: { minor: 1_050, currency: 'USD' },
        adSpend: { minor: 200, currency: 'USD' },
      },
    ],
    now,
  );
  const log = new AlertLog(redis, prefix, { maxEntries: 100, retentionMs: 30 * DAY }, () => now);
  await log.record([
    {
      alert: makeAlert(1, {
        workspace: 'acme',
        subject: { asin: ASIN, marketplace: 'US' },
        title: '=2+5 <b>hostile</b>',
        observedAt: now - HOUR,
      }),
      channels: ['log'],
    },
    { alert: makeAlert(2, { workspace: 'other', observedAt: now - HOUR }), channels: ['log'] },
  ]);
});

describe('shelfwatch export', () => {
  it(
    'exports ranks as CSV, says when the range asks for more than is kept, and refuses an unknown table',
    async () => {
      const from = day(Date.now() - 1_000 * DAY);
      const ranks = await shelfwatch([
        'export',
        'ranks',
        '--book',
        `${ASIN}/US`,
        '--from',
        from,
        '-c',
        configFile,
      ]);
      expect(ranks.stderr).toMatch(/history is kept for 730 days: nothing before \d{4}-\d{2}-\d{2} exists/);
      expect(ranks.code).toBe(0);
      const lines = ranks.stdout.trimEnd().split('\r\n');
      expect(lines).toHaveLength(2);
      expect(lines[1]).toMatch(new RegExp(`^acme,${ASIN},US,bsr,,[^,]+,hour,12345,,$`));
      const bad = await shelfwatch(['export', 'everything', '-c', configFile]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('expected one of ranks, sales, alerts');
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'exports sales days as JSON and the workspace alert log as spreadsheet-safe CSV',
    async () => {
      const sales = await shelfwatch(['export', 'sales', '--format', 'json', '-c', configFile]);
      expect(sales.code).toBe(0);
      expect(JSON.parse(sales.stdout).rows).toEqual([
        {
          workspace: 'acme',
          asin: ASIN,
          marketplace: 'US',
          date: day(Date.now() - DAY),
          units: 3,
          royalties: 10.5,
          royalties_currency: 'USD',
          ad_spend: 2,
          ad_spend_currency: 'USD',
        },
      ]);
      const alerts = await shelfwatch(['export', 'alerts', '--workspace', 'acme', '-c', configFile]);
      expect(alerts.code).toBe(0);
      const lines = alerts.stdout.trimEnd().split('\r\n');
      expect(lines).toHaveLength(2);
      expect(lines[1]).toContain(
        `,acme,${ASIN},US,,keyword_rank_drop,warning,firing,'=2+5 <b>hostile</b>,log:queued`,
      );
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
