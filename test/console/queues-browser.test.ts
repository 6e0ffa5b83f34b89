/**
 * Bull Board, mounted in the console at /queues, on a phone and for everyone (issue 25 item 6):
 * at 390 and 1280 px its document is no wider than the viewport and axe-core finds no serious
 * violation, with the console's own stylesheet for it (console/queues.ts) over Bull Board's UI.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Runtime } from '../../src/app/runtime.ts';
import { type RunningConsole, startConsole } from '../../src/console/start.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { artifactPath } from '../helpers/artifacts.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../helpers/chromium.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import { waitFor } from '../helpers/wait.ts';
import { consoleConfig, TOKEN } from './harness.ts';
import { checkLayout } from './layout-check.ts';

const haveChromium = existsSync(CHROMIUM_PATH);
if (!haveChromium && process.env.SHELFWATCH_REQUIRE_CHROMIUM === '1') {
  throw new Error(`${CHROMIUM_PATH} is missing: install Debian's chromium (apt-get install chromium)`);
}

let browser: Browser;
let runtime: Runtime;
let running: RunningConsole;

beforeAll(async () => {
  if (!haveChromium) return;
  const prefix = testPrefix('console-queues-browser');
  testRedis(prefix);
  runtime = new Runtime({ config: consoleConfig(prefix), logger: silentLogger(), version: 'test' });
  await runtime.connect();
  running = await startConsole({ runtime, token: TOKEN, host: '127.0.0.1', port: 0 });
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await running?.close();
  await runtime?.close();
});

/** Bull Board draws with script: the deliver queue's card, with its count, means it is drawn. */
async function drawn(page: Page): Promise<void> {
  await page.waitForSelector('text=deliver', { timeout: 20_000 });
  await waitFor(
    'the queue cards with their counts',
    async () => !((await page.locator('body').textContent()) ?? 'Loading').includes('Loading'),
    20_000,
  );
}

describe.skipIf(!haveChromium)('Bull Board in the console', () => {
  it('is no wider than a 390 px phone and has no serious axe violation', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(new URL('/', running.url).toString());
      await page.getByLabel('Console token').fill(TOKEN);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForSelector('h1:text("Overview")');
      const findings = await checkLayout(page, new URL('/queues', running.url).toString(), 'queues', drawn);
      writeFileSync(artifactPath('console-queues-layout.json'), `${JSON.stringify(findings, null, 2)}\n`);
      console.log(JSON.stringify(findings));
      const wide = findings.filter((f) => f.documentWidth > f.width);
      expect(wide.map((f) => `at ${f.width}: ${f.documentWidth} px`)).toEqual([]);
      expect(findings.flatMap((f) => f.violations.map((v) => `at ${f.width}: ${v}`))).toEqual([]);
    } finally {
      await page.close();
    }
  }, 120_000);
});
