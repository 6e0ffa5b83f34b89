/**
 * The config forms in Chromium (Debian's, through playwright-core; no script on the pages): add a
 * book through the lookup and its confirmation, poll it now and see the poll counted and its data
 * on the book page, add a webhook channel and see its test arrive at a local HTTP receiver. Pages
 * are checked for horizontal scroll at 390 px; screenshots at 390 and 1280 px go to .artifacts/img/.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveConfig } from '../../src/app/live-config.ts';
import { startWorkers } from '../../src/app/start.ts';
import { storeEditor } from '../../src/console/config-store-editor.ts';
import { type RunningConsole, startConsole } from '../../src/console/start.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import { Shutdown } from '../../src/ops/shutdown.ts';
import { bookTargetId } from '../../src/poll/targets.ts';
import { type HttpReceiver, startHttpReceiver } from '../../src/tools/receivers/http.ts';
import { artifactPath } from '../helpers/artifacts.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../helpers/chromium.ts';
import { type SimFixture, startSimFixture } from '../helpers/sim.ts';
import { waitFor } from '../helpers/wait.ts';
import { type ConfigConsole, startConfigConsole } from './config-harness.ts';
import { TOKEN } from './harness.ts';

const haveChromium = existsSync(CHROMIUM_PATH);
if (!haveChromium && process.env.SHELFWATCH_REQUIRE_CHROMIUM === '1') {
  throw new Error(`${CHROMIUM_PATH} is missing: install Debian's chromium (apt-get install chromium)`);
}

let sim: SimFixture;
let c: ConfigConsole;
let running: RunningConsole;
let shutdown: Shutdown;
let browser: Browser;
let page: Page;
let receiver: HttpReceiver;

beforeAll(async () => {
  if (!haveChromium) return;
  sim = await startSimFixture({ seed: 23, books: 3, key: 'sk_console_browser_config_0123456789' });
  c = await startConfigConsole('console-browser-config', sim);
  shutdown = new Shutdown(silentLogger());
  shutdown.add('runtime', () => c.runtime.close());
  await startWorkers(c.runtime, shutdown, { reconcile: false });
  // As `run` follows the store: each new revision applied in this process (the registry rebuilt).
  const live = new LiveConfig({
    runtime: c.runtime,
    store: c.store,
    logger: silentLogger(),
    checkEveryMs: 500,
  });
  await live.start();
  shutdown.add('live config', () => live.stop());
  running = await startConsole({
    runtime: c.runtime,
    token: TOKEN,
    host: '127.0.0.1',
    port: 0,
    editor: storeEditor(c.store),
  });
  shutdown.add('console', () => running.close());
  receiver = await startHttpReceiver('/hook/browser-secret-path');
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await shutdown?.run(5_000);
  await sim?.close();
});

const url = (path: string) => new URL(path, running.url).toString();

/** Widest element box against the viewport: a page that scrolls sideways has one wider. */
async function overflow(p: Page): Promise<{ page: number; main: number; viewport: number }> {
  // A string: the test's TypeScript has no DOM types; chromium runs it, whatever the page's CSP.
  return p.evaluate(
    '({ page: document.documentElement.scrollWidth, main: document.querySelector("main")?.scrollWidth ?? 0, viewport: window.innerWidth })',
  );
}

async function shoot(name: string, path: string): Promise<{ page: number; main: number; viewport: number }> {
  await page.goto(url(path));
  await page.setViewportSize({ width: 390, height: 844 });
  const narrow = await overflow(page);
  await page.screenshot({ path: artifactPath('img', `console-${name}-390.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: artifactPath('img', `console-${name}-1280.png`), fullPage: true });
  return narrow;
}

describe.skipIf(!haveChromium)('config forms in chromium', () => {
  /** "Poll now" on the book's US target: never polled before, one poll comes back ok, its page names it. */
  async function pollNowAndSeeBook(book: { asin: string; title: string }, what: string): Promise<void> {
    const target = bookTargetId(book.asin, 'US');
    const ref = { workspace: 'ws', kind: 'book' as const, id: target };
    expect((await c.runtime.store.getHealth(ref)).lastPollAt).toBeNull();
    await page.getByRole('button', { name: `Poll ${target} now (costs 1 request)` }).click();
    await page.waitForSelector('text=queued');
    const health = await waitFor(
      what,
      async () => {
        const h = await c.runtime.store.getHealth(ref);
        return h.lastPollAt === null ? undefined : h;
      },
      15_000,
    );
    expect(health.lastOutcome).toBe('ok');
    await page.goto(url(`/books/ws/${book.asin}/US`));
    expect(await page.locator('main').textContent()).toContain(book.title);
  }

  it('signs in and opens the configuration', async () => {
    await page.goto(url('/config'));
    await page.getByLabel('Console token').fill(TOKEN);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForSelector('h1:text("Overview")');
    await page.getByRole('link', { name: 'Config' }).click();
    await page.waitForSelector('h1:text("Configuration")');
    await page.getByRole('link', { name: 'ws', exact: true }).click();
    await page.waitForSelector('h1:text("Workspace ws")');
  });

  it('adds a book: one lookup request, the book saved as a new revision, applied, and its first poll', async () => {
    const book = sim.book(2);
    const spent = (await c.runtime.budget.usage('ws')).monthUsed;
    await page.getByLabel('ASIN').fill(book.asin);
    await page.getByRole('button', { name: 'Look up (1 request)' }).click();
    await page.waitForSelector('text=Found with one request');
    expect((await c.runtime.budget.usage('ws')).monthUsed - spent).toBe(1);
    expect(await page.locator('.card strong').first().textContent()).toBe(book.title);
    await page.getByLabel('Keywords to track').selectOption('list');
    await page.getByLabel('Keywords (one a line)').fill(book.keywords.slice(0, 2).join('\n'));
    await page.getByRole('button', { name: 'Add book' }).click();
    await page.waitForSelector('text=Saved as revision 2.');
    const [latest] = await c.store.history();
    expect(latest).toMatchObject({ rev: 2, by: 'token', via: 'console' });
    expect(await page.locator('li', { hasText: book.asin }).count()).toBeGreaterThan(0);
    // No restart: the worker's process applies revision 2, then "poll now" polls the new book.
    await waitFor('revision 2 applied', () => c.runtime.revision >= 2 || undefined, 10_000);
    await pollNowAndSeeBook(book, 'the first poll of the new book');
  });

  it('polls a target now: the poll is counted and its data shows on the book page', async () => {
    await page.goto(url('/config/workspaces/ws'));
    await pollNowAndSeeBook(sim.book(0), 'the poll of the book');
  });

  it('adds a webhook channel and its test arrives at the local receiver', async () => {
    await page.goto(url('/config/channels'));
    // The page has an add form per kind of channel (URL, email, Telegram, ntfy): this one's fields.
    const form = page.locator('form[aria-labelledby="add-channel"]');
    await form.getByLabel('Channel id').fill('hooked');
    await form.getByLabel('Type', { exact: true }).selectOption('webhook');
    await form.getByLabel('Webhook URL (secret)').fill(receiver.url);
    await form.getByLabel('Signing secret (webhook type only)').fill('whsec-browser-signing-0123456789');
    await form.getByRole('button', { name: 'Add channel' }).click();
    await page.waitForSelector('text=Saved as revision');
    await page.getByRole('button', { name: 'Send a test to hooked' }).click();
    await page.waitForSelector('text=the channel accepted it');
    const [message] = await receiver.waitForMessages(1, 10_000);
    expect(message?.raw).toContain('Test alert from shelfwatch');
    expect(await page.content()).not.toContain('browser-secret-path');
  });

  it('has no horizontal scroll at 390 px; screenshots at 390 and 1280 px', async () => {
    const widths = {
      workspace: await shoot('config-workspace', '/config/workspaces/ws'),
      channels: await shoot('config-channels', '/config/channels'),
      alerting: await shoot('config-alerting', '/config/alerting'),
      rules: await shoot('config-rules', '/config/workspaces/ws/rules?kind=keyword_rank_drop'),
    };
    for (const [name, w] of Object.entries(widths)) {
      expect(w.main, `${name}: main content ${w.main} px wide at ${w.viewport} px`).toBeLessThanOrEqual(
        w.viewport,
      );
    }
  });
});
