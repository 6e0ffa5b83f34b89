/**
 * The book page's history in a real browser (Debian's chromium through playwright-core): range
 * links that work without script, a keyword chart whose axis includes the baseline an alert compared
 * against (a drop from #1 to #46 drawn from #1, the marker at #46), the book against its comps on one
 * BSR chart, and a CSV download whose formula-like cells are escaped.
 */
import { existsSync, readFileSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Runtime } from '../../src/app/runtime.ts';
import { type RunningConsole, startConsole } from '../../src/console/start.ts';
import { BSR_SERIES, compSeries } from '../../src/history/store.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../helpers/chromium.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { seedBook } from './browser-seed.ts';
import { ASIN, alertOf, consoleConfig, TOKEN } from './harness.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const haveChromium = existsSync(CHROMIUM_PATH);
if (!haveChromium && process.env.SHELFWATCH_REQUIRE_CHROMIUM === '1')
  throw new Error(`${CHROMIUM_PATH} is missing`);

let browser: Browser;
let page: Page;
let runtime: Runtime;
let running: RunningConsole;

beforeAll(async () => {
  if (!haveChromium) return;
  const prefix = testPrefix('console-history');
  testRedis(prefix);
  runtime = new Runtime({ config: consoleConfig(prefix), logger: silentLogger(), version: 'test' });
  await runtime.connect();
  running = await startConsole({ runtime, token: TOKEN, host: '127.0.0.1', port: 0 });
  const now = Date.now();
  await seedBook(runtime, now);
  const history = runtime.pollDeps.history;
  const book = { workspace: 'main', asin: ASIN, marketplace: 'US' };
  const hours = (days: number, rank: (i: number) => number) =>
    Array.from({ length: days * 24 }, (_, i) => ({ at: now - (days * 24 - i) * HOUR, rank: rank(i) }));
  // 20 days of the book and two comps, and a keyword at #45/#46 after a fall from #1.
  await history?.record(
    book,
    [
      { series: BSR_SERIES, points: hours(20, (i) => 1_500 + (i % 48) * 10) },
      { series: compSeries('B0COMP0001'), points: hours(20, (i) => 2_300 + (i % 24) * 20) },
      { series: compSeries('B0COMP0003'), points: hours(20, () => 41_000) },
      { series: 'space opera', points: hours(2, (i) => (i < 4 ? 1 : 45 + (i % 2))) },
    ],
    now,
  );
  await runtime.alertLog.record([
    {
      alert: alertOf(46, {
        fingerprint: 'fp-history-drop',
        title: 'space opera fell from #1 to #46',
        facts: { before: 1, after: 46 },
        observedAt: now - 44 * HOUR,
      }),
      channels: ['slack-main'],
    },
    {
      alert: alertOf(47, {
        fingerprint: 'fp-history-formula',
        subject: { asin: ASIN, marketplace: 'US' },
        title: '=HYPERLINK("http://evil.example","x")',
        observedAt: now - 3 * DAY,
      }),
      channels: ['slack-main'],
    },
  ]);
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
  const context = await browser.newContext({
    acceptDownloads: true,
    viewport: { width: 1280, height: 900 },
    locale: 'en-US',
  });
  page = await context.newPage();
  await page.goto(new URL('/', running.url).toString());
  await page.getByLabel('Console token').fill(TOKEN);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForSelector('h1:text("Overview")');
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await running?.close();
  await runtime?.close();
});

const bookUrl = () => new URL(`/books/main/${ASIN}/US`, running.url).toString();

describe.skipIf(!haveChromium)('book history in chromium', () => {
  it('moves between ranges by plain links, marking the current one', async () => {
    await page.goto(bookUrl());
    const ranges = page.getByRole('navigation', { name: 'Range' });
    expect(await ranges.locator('[aria-current="page"]').textContent()).toBe('30 d');
    await ranges.getByRole('link', { name: '7 d' }).click();
    await page.waitForURL(/range=7d$/);
    expect(await ranges.locator('[aria-current="page"]').textContent()).toBe('7 d');
    await ranges.getByRole('link', { name: '1 y' }).click();
    await page.waitForURL(/range=1y$/);
    expect(await ranges.locator('[aria-current="page"]').textContent()).toBe('1 y');
    expect(await page.locator('table.stats td').first().textContent()).toMatch(/^#1,\d{3} \(/);
  });

  it('draws the keyword from #1: the baseline is in the axis, the marker at #46', async () => {
    await page.goto(`${bookUrl()}?range=7d`);
    const chart = page.locator('figure', {
      has: page.locator('figcaption', { hasText: 'Rank for “space opera”' }),
    });
    const svg = chart.locator('svg');
    expect(await svg.getAttribute('data-top')).toBe('1');
    expect(await chart.locator('text.ytick, text[class="ytick"]').first().textContent()).toBe('#1');
    expect(await chart.locator('circle.observed').getAttribute('data-rank')).toBe('46');
    const baseline = await chart.locator('circle.baseline').boundingBox();
    const observed = await chart.locator('circle.observed').boundingBox();
    const plot = await svg.boundingBox();
    // #1 near the top of the plot, #46 well below it.
    expect((baseline?.y ?? 0) - (plot?.y ?? 0)).toBeLessThan(40);
    expect((observed?.y ?? 0) - (baseline?.y ?? 0)).toBeGreaterThan(80);
    expect(await chart.locator('g.marker title').textContent()).toContain('(#1 → #46)');
  });

  it('draws the book against its comps on one BSR chart, with no ratio for a comp without rank', async () => {
    await page.goto(`${bookUrl()}?range=30d`);
    const chart = page.locator('#bsr-chart');
    expect(await chart.locator('polyline.series').count()).toBe(3);
    expect(await chart.locator('text.legend').allTextContents()).toEqual([
      'The Quiet Orbit <b>bold?</b>',
      'Starward Drift (comp)',
      'The Long Burn (comp)',
    ]);
    expect(await chart.locator('b').count()).toBe(0);
    expect(await page.locator('table.comps').textContent()).not.toContain('0.00×');
  });

  it('downloads the alert log as CSV with formula cells escaped', async () => {
    await page.goto(`${bookUrl()}?range=30d`);
    const row = page.locator('table.exports tr', { hasText: 'Alert log' });
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      row.getByRole('link', { name: 'CSV' }).first().click(),
    ]);
    expect(download.suggestedFilename()).toBe(`main-${ASIN}-US-alerts.csv`);
    const csv = readFileSync((await download.path()) ?? '', 'utf8');
    const lines = csv.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'observed_at,workspace,asin,marketplace,keyword,kind,severity,status,title,deliveries',
    );
    expect(csv).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    expect(lines.filter((l) => /(^|,)[=+\-@]/.test(l))).toEqual([]);
  });
});
