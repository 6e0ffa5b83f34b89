/**
 * Every email in a real browser (issue 25 item 6): each alert kind's email and the daily digest,
 * loaded in Chromium at 390 px (a phone) and 1280 px; the document may not be wider than the
 * viewport (no horizontal scroll). Screenshots go to .artifacts/img/email-*.png (`npm run
 * screenshots` copies them to docs/img/; no test writes a tracked file).
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutgoingMessage } from '../../src/channels/notifier.ts';
import { renderAlertEmail } from '../../src/channels/render/email.ts';
import { digestCharts } from '../../src/digest/charts.ts';
import { computeFigures } from '../../src/digest/figures.ts';
import { renderDigest } from '../../src/digest/template.ts';
import { ALERT_KINDS, type Alert, type AlertKind } from '../../src/model/alert.ts';
import { messageLinks } from '../../src/silence/mute-link.ts';
import {
  A,
  B,
  book,
  C,
  campaign,
  HOUR,
  hourly,
  inputs,
  keywordObs,
  lastDigest,
  review,
  row,
} from '../digest/fixtures.ts';
import { artifactPath } from '../helpers/artifacts.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../helpers/chromium.ts';
import { alertOfKind } from '../kinds/fixtures.ts';

const WIDTHS = [390, 1280] as const;
const LINKS = { publicUrl: 'https://shelfwatch.example.com', secret: 's'.repeat(40) };
let browser: Browser;
/**
 * One tab per width for the whole file: each email replaces the document of the tab (setContent),
 * so what one email's page measures is its own, without a context per email and width (42 of them).
 */
const tabs = new Map<number, Page>();

beforeAll(async () => {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`no browser at ${CHROMIUM_PATH}`);
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
  for (const width of WIDTHS) {
    const context = await browser.newContext({ viewport: { width, height: 800 } });
    tabs.set(width, await context.newPage());
  }
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

/** Loads the HTML at each width: the document's width, and a full-page screenshot in .artifacts. */
async function measure(name: string, page: string): Promise<Record<number, number>> {
  const widths: Record<number, number> = {};
  for (const width of WIDTHS) {
    const tab = tabs.get(width);
    if (tab === undefined) throw new Error(`no tab at ${width} px`);
    await tab.setContent(page, { waitUntil: 'load' });
    widths[width] = Number(
      await tab.evaluate('Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)'),
    );
    await tab.screenshot({ path: artifactPath('img', `email-${name}-${width}.png`), fullPage: true });
  }
  return widths;
}

function alertEmail(kind: AlertKind): string {
  const alert = alertOfKind(kind) as Alert;
  const message: OutgoingMessage = {
    alerts: [alert],
    totalCount: 1,
    hideLowStarText: false,
    messageId: `browser-${kind}`,
    links: messageLinks(LINKS, [alert], 'team-mail', `browser-${kind}`, 1_800_000_000_000),
  };
  return renderAlertEmail(message, { from: 'alerts@shelfwatch.test', to: ['author@example.com'] }).html;
}

/** A digest with three books (long titles), sales in two currencies, keywords, reviews and charts. */
function digestEmail(): string {
  const DAY = '2026-11-21';
  const NOW = Date.UTC(2026, 10, 22, 7);
  const start = Date.UTC(2026, 10, 15);
  const ranks = (base: number) => Array.from({ length: 7 * 24 }, (_, i) => base + ((i * 37) % 400));
  const figures = computeFigures(
    inputs({
      day: DAY,
      nowMs: NOW,
      sales: {
        status: 'ok',
        rows: [
          row(A, 'US', DAY, 12, '41.30', '5.00'),
          row(B, 'US', DAY, 3, '9.10'),
          row(C, 'UK', DAY, 7, '18.20', '2.50'),
          row(A, 'US', '2026-11-20', 4, '13.00'),
        ],
        from: '2026-11-15',
        to: DAY,
        requests: 1,
      },
      books: [
        book(
          A,
          'US',
          hourly(start, ranks(900)),
          'The Extraordinarily Long Title of a Space Opera: Book One of the Chronicles',
        ),
        book(B, 'US', hourly(start, ranks(4_000)), 'Tea and Sympathy at the Lighthouse Bookshop'),
        book(C, 'UK', hourly(start, ranks(12_000)), 'A Cozy Mystery'),
      ],
      keywords: [keywordObs(A, { 'space opera': 9, 'military science fiction': 31 })],
      campaigns: [
        {
          campaignId: 'arc_da03c82a7a',
          invites: 20,
          reviews: campaign('arc_da03c82a7a', [
            review('r1', A, 5, NOW - HOUR),
            review('r2', A, 2, NOW - 2 * HOUR),
          ]),
        },
      ],
      previous: lastDigest({
        keywordRanks: [{ asin: A, marketplace: 'US', keyword: 'space opera', rank: 40 }],
      }),
    }),
  );
  const charts = digestCharts(figures);
  let { html } = renderDigest(figures, charts);
  // A mail client shows the inline images (cid:) from the message; a page loads them as data URLs.
  for (const chart of [...charts.royalties.values(), ...charts.bsr.values()])
    html = html.replaceAll(`cid:${chart.cid}`, `data:image/png;base64,${chart.png.toString('base64')}`);
  return html;
}

describe('emails fit a phone and a desktop', () => {
  it.each(ALERT_KINDS)('%s: no wider than 390 px or 1280 px', async (kind) => {
    const widths = await measure(kind, alertEmail(kind));
    expect(widths).toEqual({ 390: expect.any(Number), 1280: expect.any(Number) });
    for (const width of WIDTHS) expect(widths[width], `${kind} at ${width}`).toBeLessThanOrEqual(width);
  });

  it('the daily digest: no wider than 390 px or 1280 px', async () => {
    const widths = await measure('digest', digestEmail());
    for (const width of WIDTHS) expect(widths[width], `digest at ${width}`).toBeLessThanOrEqual(width);
  }, 30_000);
});
