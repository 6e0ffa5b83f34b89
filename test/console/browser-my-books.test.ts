/**
 * "My books" in Chromium: a person signs in with her personal token and sees her book, its rank
 * and what is firing now, in her zone; the page has no horizontal scroll at 390 px or 1280 px and
 * no serious axe-core violation (the same check as every console page, test/console/layout-check.ts).
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Runtime } from '../../src/app/runtime.ts';
import { type RunningConsole, startConsole } from '../../src/console/start.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../helpers/chromium.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { seedBook } from './browser-seed.ts';
import { alertOf, consoleConfig, mainWorkspace, TOKEN } from './harness.ts';
import { checkLayout } from './layout-check.ts';

const ANA_TOKEN = 'ana-browser-token-0123456789abcdef';
const haveChromium = existsSync(CHROMIUM_PATH);
if (!haveChromium && process.env.SHELFWATCH_REQUIRE_CHROMIUM === '1') {
  throw new Error(`${CHROMIUM_PATH} is missing: install Debian's chromium (apt-get install chromium)`);
}

let browser: Browser;
let page: Page;
let runtime: Runtime;
let running: RunningConsole;

beforeAll(async () => {
  if (!haveChromium) return;
  const prefix = testPrefix('browser-my-books');
  testRedis(prefix);
  runtime = new Runtime({
    config: consoleConfig(prefix, {
      workspaces: [{ ...mainWorkspace(), timeZone: 'Europe/Berlin' }],
      people: {
        accounts: [
          {
            id: 'ana',
            name: 'Ana Roth',
            email: 'ana@example.com',
            timeZone: 'America/New_York',
            role: 'member',
            token: ANA_TOKEN,
          },
        ],
        subscriptions: [{ person: 'ana', author: 'Ada Quill' }],
      },
    }),
    logger: silentLogger(),
    version: 'test',
  });
  await runtime.connect();
  running = await startConsole({ runtime, token: TOKEN, host: '127.0.0.1', port: 0 });
  const now = Date.now();
  await seedBook(runtime, now);
  // A long hostile keyword title: the card must wrap it, not widen the page.
  const drop = alertOf(1, {
    observedAt: now - 3_600_000,
    title: `space opera fell to #41 ${'W'.repeat(300)}`,
  });
  await runtime.alertLog.record([{ alert: drop, channels: ['slack-main'] }]);
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await running?.close();
  await runtime?.close();
});

describe.skipIf(!haveChromium)('my books in chromium', () => {
  it('a person signs in with her token and sees her book and what is firing, in her zone', async () => {
    await page.goto(new URL('/login', running.url).toString());
    await page.getByLabel('Console token or personal token').fill(ANA_TOKEN);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.goto(new URL('/me', running.url).toString());
    await page.waitForSelector('h1:text("My books")');
    const text = (await page.textContent('main')) ?? '';
    expect(text).toContain('The Quiet Orbit <b>bold?</b>');
    expect(text).toContain('#9,800');
    expect(text).toContain('space opera fell to #41');
    expect(text).toContain('Times in America/New_York.');
    expect(await page.getByRole('button', { name: /Mute for a day: keyword_rank_drop/ }).count()).toBe(1);
  });

  it('has no horizontal scroll at 390 px and 1280 px and no serious axe violation', async () => {
    const findings = await checkLayout(page, new URL('/me', running.url).toString(), 'my-books');
    expect(
      findings.filter((f) => f.documentWidth > f.width).map((f) => `${f.width}: ${f.documentWidth} px`),
    ).toEqual([]);
    expect(findings.flatMap((f) => f.violations.map((v) => `${f.width}: ${v}`))).toEqual([]);
  }, 60_000);
});
