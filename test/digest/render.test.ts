import { describe, expect, it } from 'vitest';
import { AXIS_CHART_WIDTH, axisChartSvg, renderChartPng } from '../../src/digest/axis-chart.ts';
import {
  digestCharts,
  downsample,
  renderPng,
  sparklineSvg,
  unicodeSparkline,
} from '../../src/digest/charts.ts';
import { computeFigures } from '../../src/digest/figures.ts';
import { escapeHtml, renderDigest } from '../../src/digest/template.ts';
import type { DigestInputs } from '../../src/digest/types.ts';
import { A, book, campaign, HOUR, hourly, inputs, keywordObs, lastDigest, review, row } from './fixtures.ts';

const DAY = '2026-11-21';
const NOW = Date.UTC(2026, 10, 22, 7);

function pngSize(png: Buffer): { width: number; height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

describe('digest charts with labelled axes', () => {
  const chart = (caption: string, labels = true) =>
    axisChartSvg({
      values: [2940, 1800, null, 958, 1200, 2100],
      xLabels: labels
        ? [
            { index: 0, label: '20 Nov 00:00' },
            { index: 3, label: '21 Nov 00:00' },
            { index: 5, label: '21 Nov 23:00' },
          ]
        : [],
      formatValue: (v) => `#${v.toLocaleString('en-US')}`,
      caption,
      color: '#7c3aed',
      log: true,
      invert: true,
    });
  const texts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);

  it('names the value range, the dates and the last value, with the caption escaped', () => {
    const svg = chart('“<script>alert(1)</script>” & Co · US');
    // Ranks: the best (#958) is at the top of the axis, the worst (#2,940) at the bottom.
    expect(texts(svg)).toEqual([
      '“&lt;script&gt;alert(1)&lt;/script&gt;” &amp; Co · US',
      '#958',
      '#2,940',
      '20 Nov 00:00',
      '21 Nov 00:00',
      '21 Nov 23:00',
      '#2,100',
    ]);
    expect(svg).not.toContain('<script');
  });

  it('draws the text with the bundled font: the same PNG every time, and the labels show', () => {
    const png = renderChartPng(chart('The Teapot Murders · US'));
    expect(png.readUInt32BE(16)).toBe(AXIS_CHART_WIDTH);
    expect(renderChartPng(chart('The Teapot Murders · US')).equals(png)).toBe(true);
    // Without a font resvg draws no text at all, and these two would come out the same.
    expect(renderChartPng(chart('The Teapot Murders · US', false)).equals(png)).toBe(false);
    expect(renderChartPng(chart('Another title · US')).equals(png)).toBe(false);
  });
});

describe('digest charts', () => {
  it('draws unicode sparklines with gaps for no data, ranks inverted (up is better)', () => {
    expect(unicodeSparkline([1, 2, null, 8])).toBe('▁▂·█');
    expect(unicodeSparkline([10, 100, 1000], { log: true, invert: true })).toBe('█▅▁');
    expect(unicodeSparkline([null, null])).toBe('··');
    expect(unicodeSparkline([5, 5])).toBe('▅▅');
    expect(downsample([1, 2, 3, 4, null, null], 3)).toEqual([1.5, 3.5, null]);
  });

  it('renders small PNGs from the SVG, splitting the line at gaps', () => {
    const svg = sparklineSvg([3, 1, null, 2, 5], { invert: true });
    expect(svg.match(/<polyline/g)).toHaveLength(2);
    const png = renderPng(svg);
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(pngSize(png)).toEqual({ width: 240, height: 48 });
    expect(png.length).toBeLessThan(4_000);
    // Inverted: the best (lowest) value is drawn at the top (small y).
    const [first, second] = /points="([^"]+)"/.exec(svg)?.[1]?.split(' ') ?? [];
    expect(Number(first?.split(',')[1])).toBeGreaterThan(Number(second?.split(',')[1]));
  });

  it('makes one royalty chart per currency and BSR charts with alt text and a text fallback', () => {
    const rows = [
      row(A, 'US', DAY, 1, '3.00'),
      row(A, 'UK', DAY, 1, '2.00'),
      row(A, 'US', '2026-11-19', 1, '1.00'),
    ];
    const figures = computeFigures(
      inputs({
        day: DAY,
        nowMs: NOW,
        sales: { status: 'ok', rows, from: '2026-11-14', to: DAY, requests: 1 },
        books: [book(A, 'US', hourly(Date.UTC(2026, 10, 20), [900, 800, 700, null, 600]))],
      }),
    );
    const charts = digestCharts(figures);
    expect([...charts.royalties.keys()]).toEqual(['GBP', 'USD']);
    const usd = charts.royalties.get('USD');
    expect(usd?.alt).toBe(
      'Daily royalties in USD, 2026-11-15 to 2026-11-21 (2 of 7 days with data): no data, no data, no data, no data, 1.00, no data, 3.00',
    );
    expect(usd?.text).toBe('····▁·█');
    const bsr = charts.bsr.get(`${A}|US`);
    expect(bsr?.cid).toBe(`bsr-${A}-US@shelfwatch`);
    expect(bsr?.alt).toContain('higher is better: #900 to #600');
    expect(bsr?.text).toBe('▁▃▅·█');
  });
});

/** A digest of one book on one marketplace with a title and a tracked keyword the test chooses. */
function oneBookFigures(title: string, keyword: string, extra: Partial<DigestInputs> = {}) {
  return computeFigures(
    inputs({
      day: DAY,
      nowMs: NOW,
      sales: { status: 'ok', rows: [row(A, 'US', DAY, 1, '3.00')], from: '2026-11-14', to: DAY, requests: 1 },
      books: [book(A, 'US', hourly(Date.UTC(2026, 10, 20), Array(48).fill(100)), title)],
      keywords: [keywordObs(A, { [keyword]: 9 })],
      previous: lastDigest({ keywordRanks: [{ asin: A, marketplace: 'US', keyword, rank: 40 }] }),
      ...extra,
    }),
  );
}

describe('digest templates', () => {
  it('escapes every untrusted string in the HTML and references each image by cid with alt text', () => {
    const evil = '<img src=x onerror=alert(1)> & "Co"';
    const figures = oneBookFigures(evil, '<b>bold</b>', {
      campaigns: [
        {
          campaignId: 'arc<script>',
          invites: 1,
          reviews: campaign('arc<script>', [review('r9', A, 1, NOW - HOUR)]),
        },
      ],
    });
    const { html, text } = renderDigest(figures, digestCharts(figures));
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<b>bold</b>');
    expect(html).not.toContain('arc<script>');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt; &amp; &quot;Co&quot;');
    expect(html).toContain('&lt;b&gt;bold&lt;/b&gt;');
    const cids = [...html.matchAll(/<img src="cid:([^"]+)" alt="([^"]+)"/g)];
    expect(cids.map((m) => m[1]).sort()).toEqual([`bsr-${A}-US@shelfwatch`, 'royalties-USD@shelfwatch']);
    expect(cids.every((m) => (m[2] ?? '').length > 20)).toBe(true);
    // The text part carries the same untrusted text, unescaped (it is not HTML).
    expect(text).toContain(evil);
    expect(escapeHtml(`'`)).toBe('&#39;');
  });

  it('no bidi control leaves in the subject, the text or the HTML (issue 27)', () => {
    const figures = oneBookFigures('Dune \u202Egnp.exe\u2066 \u200F', 'space \u202Dopera');
    const { subject, text, html } = renderDigest(figures, digestCharts(figures));
    for (const [part, value] of Object.entries({ subject, text, html }))
      expect(value, part).not.toMatch(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
    expect(html).toContain('Dune gnp.exe');
    expect(text).toContain('space opera');
  });

  it('shows book titles and keywords on one line each', () => {
    const figures = oneBookFigures('Dune\n\nSALES — yesterday: 0.00 USD\r\n\u0007', 'space\nopera');
    const { text, html } = renderDigest(figures, digestCharts(figures));
    const lines = text.split('\n');
    expect(lines.filter((line) => line.startsWith('SALES'))).toHaveLength(1);
    expect(lines.some((l) => l.startsWith(`  “Dune SALES — yesterday: 0.00 USD” (${A}, US)   `))).toBe(true);
    expect(text).toContain(`“space opera” (${A}, US)`);
    expect(html).toContain(`“Dune SALES — yesterday: 0.00 USD” (${A}, US)`);
  });
});

describe('store links in the digest', () => {
  it("links each book's title to its store page on its marketplace, escaped", () => {
    const figures = oneBookFigures('Tea & <Sympathy>', 'cozy mystery');
    const { html } = renderDigest(figures, digestCharts(figures));
    const link = `<a href="https://www.amazon.com/dp/${A}" style="color:#0969da;text-decoration:none">“Tea &amp; &lt;Sympathy&gt;” (${A}, US)</a>`;
    // Once in the sales table by title, once beside the BSR chart.
    expect(html.split(link).length - 1).toBe(2);
    expect(html).not.toContain('<Sympathy>');
  });
});
