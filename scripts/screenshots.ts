/**
 * Screenshots of real messages for the docs: an alert email and a Slack message sent through the
 * real channels to local receivers (the demo's SMTP and Slack captures), a Discord embed from the
 * Discord channel's own renderer, and a digest rendered by the digest templates with its charts.
 * Each is shown as a page in Debian's chromium (playwright-core, no browser download) and saved
 * under .artifacts/img/; then every screenshot there is copied to docs/img/, the console's included
 * (the browser tests, test/console/browser.test.ts, save those in .artifacts/img/ and write no
 * tracked file). Run: `npm run screenshots` (needs /usr/bin/chromium).
 */

import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { createNotifiers } from '../src/app/notifiers.ts';
import { renderDiscordMessage } from '../src/channels/discord.ts';
import type { OutgoingMessage } from '../src/channels/notifier.ts';
import { createSmtpPool } from '../src/channels/smtp-pool.ts';
import { channelSchema } from '../src/config/channels.ts';
import { digestCharts } from '../src/digest/charts.ts';
import { computeFigures } from '../src/digest/figures.ts';
import { inlineImagesAsDataUris } from '../src/digest/send.ts';
import { renderDigest } from '../src/digest/template.ts';
import { silentLogger } from '../src/ops/logger.ts';
import { startSlackCapture } from '../src/tools/demo/slack-capture.ts';
import { startMailCapture } from '../src/tools/demo/smtp-capture.ts';
import { systemClock } from '../src/util/clock.ts';
import { artifactPath, REPO_ROOT } from '../test/helpers/artifacts.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../test/helpers/chromium.ts';
import { chatPage, slackPage } from './screenshots-pages.ts';
import { digestInputs, sampleAlerts } from './screenshots-samples.ts';

const DOCS_IMG = join(REPO_ROOT, 'docs', 'img');
/** Taken by the browser tests, copied here with the rest. */
const CONSOLE_PAGES = [
  'overview',
  'alerts',
  'alert',
  'book',
  'silences',
  'dead-letters',
  'not-found',
  'login',
  // Bull Board at /queues (test/console/queues-browser.test.ts).
  'queues',
];
/** Each console page at a phone's 390 px and at 1280 px (test/console/layout-check.ts). */
const CONSOLE_SHOTS = [
  'console-overview',
  'console-book',
  ...CONSOLE_PAGES.flatMap((page) => [`console-${page}-390`, `console-${page}-1280`]),
];
/** Taken by test/deliver/email-browser.test.ts: the digest on a phone and a desktop. */
const EMAIL_SHOTS = ['email-digest-390', 'email-digest-1280'];
const ZONE = 'Europe/Berlin';

async function captureSlackAndEmail(dir: string, message: OutgoingMessage) {
  const slack = await startSlackCapture(dir, () => {});
  const mail = await startMailCapture(dir, () => {});
  const smtp = createSmtpPool();
  try {
    const channels = [
      channelSchema.parse({ id: 'team-slack', type: 'slack', webhookUrl: slack.url, allowAnyHost: true }),
      channelSchema.parse({
        id: 'author-mail',
        type: 'email',
        smtpUrl: mail.url,
        from: 'shelfwatch@example.com',
        to: ['author@example.com'],
      }),
    ];
    const notifiers = createNotifiers(channels, { logger: silentLogger(), smtp, clock: systemClock });
    for (const notifier of notifiers.values()) await notifier.send(message, AbortSignal.timeout(30_000));
    const slackFile = slack.messages[0]?.path;
    const htmlFile = mail.messages[0]?.htmlPath;
    if (slackFile === undefined || htmlFile === undefined) throw new Error('a channel delivered nothing');
    return {
      slack: JSON.parse(await readFile(slackFile, 'utf8')) as { blocks: unknown[] },
      emailHtml: await readFile(htmlFile, 'utf8'),
    };
  } finally {
    await smtp.closeAll();
    await slack.close();
    await mail.close();
  }
}

/** Renders the message screenshots into .artifacts/img/; returns their names. */
async function main(): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'shelfwatch-shots-'));
  const profile = await mkdtemp(join(tmpdir(), 'shelfwatch-chromium-'));
  const message: OutgoingMessage = {
    alerts: sampleAlerts(),
    totalCount: 4,
    hideLowStarText: false,
    messageId: 'docs-screenshot',
    timeZone: ZONE,
  };
  const captured = await captureSlackAndEmail(dir, message);
  const figures = computeFigures(digestInputs(ZONE));
  const charts = digestCharts(figures);
  const digest = renderDigest(figures, charts);
  const images = [...charts.royalties.values(), ...charts.bsr.values()].map((c) => ({
    filename: c.filename,
    content: c.png,
    contentType: 'image/png' as const,
    cid: c.cid,
    contentDisposition: 'inline' as const,
  }));
  const digestHtml = inlineImagesAsDataUris(digest.html, images);
  const pages: [name: string, html: string, width: number][] = [
    ['alert-email', captured.emailHtml, 720],
    ['alert-slack', slackPage(captured.slack.blocks), 720],
    ['alert-discord', chatPage(renderDiscordMessage(message)), 720],
    ['digest-email', digestHtml, 760],
  ];
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS],
  });
  try {
    for (const [name, html, width] of pages) {
      const file = join(dir, `${name}.html`);
      await writeFile(file, html);
      const page = await browser.newPage();
      await page.setViewportSize({ width, height: 400 });
      await page.goto(`file://${file}`);
      await page.screenshot({ path: artifactPath('img', `${name}.png`), fullPage: true });
      await page.close();
    }
  } finally {
    await browser.close();
    await rm(dir, { recursive: true, force: true });
    await rm(profile, { recursive: true, force: true });
  }
  return pages.map(([name]) => name);
}

/** Copies the screenshots in .artifacts/img/ to docs/img/; says which console shots are missing. */
async function copyToDocs(names: readonly string[]): Promise<void> {
  for (const name of [...names, ...CONSOLE_SHOTS, ...EMAIL_SHOTS]) {
    const from = artifactPath('img', `${name}.png`);
    if (!existsSync(from)) {
      process.stderr.write(
        `docs/img/${name}.png left as it is: run the browser tests first (npx vitest run test/console/browser.test.ts test/console/queues-browser.test.ts test/deliver/email-browser.test.ts)\n`,
      );
      continue;
    }
    await copyFile(from, join(DOCS_IMG, `${name}.png`));
    process.stdout.write(`docs/img/${name}.png\n`);
  }
}

await copyToDocs(await main());
