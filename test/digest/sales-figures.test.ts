import { describe, expect, it } from 'vitest';
import { digestCharts } from '../../src/digest/charts.ts';
import { computeFigures } from '../../src/digest/figures.ts';
import { renderDigest } from '../../src/digest/template.ts';
import type { DigestFigures, SalesSection } from '../../src/digest/types.ts';
import { A, B, C, inputs, lastDigest, row } from './fixtures.ts';

const DAY = '2026-11-21';
const NOW = Date.UTC(2026, 10, 22, 7);
const SALES = { status: 'ok' as const, from: '2026-11-14', to: DAY, requests: 1 };

function okSales(figures: DigestFigures): Extract<SalesSection, { status: 'ok' }> {
  if (figures.sales.status !== 'ok') throw new Error(`sales ${figures.sales.status}`);
  return figures.sales;
}

function render(figures: DigestFigures) {
  return renderDigest(figures, digestCharts(figures));
}

describe('digest sales figures', () => {
  it('totals each currency on its own and never adds currencies together', () => {
    const rows = [
      row(A, 'US', DAY, 3, '10.50', '2.00'),
      row(B, 'US', DAY, 1, '4.25'),
      row(A, 'UK', DAY, 2, '7.10', '1.10'),
      row(A, 'DE', DAY, 1, '3.33'),
      row(B, 'FR', DAY, 2, '1.67'),
      row(A, 'US', '2026-11-20', 5, '20.00', '4.00'),
      row(A, 'JP', DAY, 1, '450'),
    ];
    const figures = computeFigures(inputs({ day: DAY, nowMs: NOW, sales: { ...SALES, rows } }));
    const totals = okSales(figures).totals.map((t) => ({
      currency: t.currency,
      yesterday: t.yesterday && [
        t.yesterday.royalties,
        t.yesterday.units,
        t.yesterday.adSpend,
        t.yesterday.net,
      ],
      week: t.week && [t.week.royalties, t.week.units, t.week.adSpend, t.week.net],
    }));
    expect(totals).toEqual([
      { currency: 'EUR', yesterday: [500, 3, 0, 500], week: [500, 3, 0, 500] },
      { currency: 'GBP', yesterday: [710, 2, 110, 600], week: [710, 2, 110, 600] },
      { currency: 'JPY', yesterday: [450, 1, 0, 450], week: [450, 1, 0, 450] },
      { currency: 'USD', yesterday: [1475, 4, 200, 1275], week: [3475, 9, 600, 2875] },
    ]);
    const usd = okSales(figures).totals.find((t) => t.currency === 'USD');
    expect(usd?.yesterday?.acos).toBeCloseTo(200 / 1475, 10);
    expect(usd?.daily).toEqual([null, null, null, null, null, 2000, 1475]);
    const { subject, text } = render(figures);
    expect(subject).toBe(
      'Daily digest for acme — Sat 21 Nov: 5.00 EUR + 7.10 GBP + 450 JPY + 14.75 USD royalties, no new reviews, all quiet',
    );
    // Columns: the day, the 7 days, the change against the week's other days (20.00 USD on one day).
    expect(text).toMatch(/ {2}USD +Sat 21 Nov +7 days \(2 with data\) +change\n/);
    expect(text).toMatch(/ {2}Royalties +14\.75 USD† +34\.75 USD† +−26%\n/);
    expect(text).toMatch(/ {2}Units +4† +9† +−20%\n/);
    expect(text).toMatch(/ {2}Net +12\.75 USD† +28\.75 USD† +−20%\n/);
    expect(text).toMatch(/ {2}ACoS +13\.6% +17\.3%\n/);
    expect(text).toMatch(/ {2}Royalties +450 JPY† +450 JPY† +—\n/);
    // The headline totals come before the titles.
    expect(text.indexOf('Royalties')).toBeLessThan(text.indexOf('By title'));
    expect(text).toContain('ACoS here = ad spend ÷ royalties');
  });

  it('marks figures provisional for 14 days after their date, and final after that', () => {
    const rows = [row(A, 'US', '2026-10-01', 2, '8.00'), row(A, 'US', '2026-09-28', 1, '4.00')];
    const sales = { ...SALES, from: '2026-09-24', to: '2026-10-01', rows };
    const early = okSales(
      computeFigures(inputs({ day: '2026-10-01', nowMs: Date.UTC(2026, 9, 14, 12), sales })),
    );
    expect(early.pairs[0]?.yesterday?.provisional).toBe(true);
    expect(early.pairs[0]?.week?.provisional).toBe(true);
    const late = computeFigures(inputs({ day: '2026-10-01', nowMs: Date.UTC(2026, 9, 20), sales }));
    expect(okSales(late).pairs[0]?.yesterday?.provisional).toBe(false);
    expect(okSales(late).pairs[0]?.week?.provisional).toBe(false);
    expect(okSales(late).totals[0]?.week?.provisional).toBe(false);
    const text = render(late).text;
    expect(text).toMatch(/Royalties +8\.00 USD +12\.00 USD +/);
    expect(text).not.toMatch(/USD†/);
    const provisional = render(
      computeFigures(
        inputs({ day: DAY, nowMs: NOW, sales: { ...SALES, rows: [row(A, 'US', DAY, 1, '1.00')] } }),
      ),
    );
    // A dagger after the figure, explained in the footnote: a leading "*" read like a bullet.
    expect(provisional.text).toMatch(/Royalties +1\.00 USD† +1\.00 USD†/);
    expect(provisional.text).toContain('† Provisional: the API may revise');
    for (const part of [provisional.text, provisional.html]) expect(part).not.toMatch(/\* ?\d|\d\*/);
  });

  it('lists revisions since the last digest: revised, late and withdrawn days', () => {
    const previous = lastDigest({
      salesFrom: '2026-11-13',
      salesTo: '2026-11-20',
      sales: [
        row(A, 'US', '2026-11-13', 9, '99.00'),
        row(A, 'US', '2026-11-17', 1, '5.00'),
        row(A, 'US', '2026-11-18', 3, '87.12'),
        row(A, 'US', '2026-11-19', 2, '10.00'),
        row(B, 'UK', '2026-11-18', 1, '2.00'),
      ],
    });
    const rows = [
      row(A, 'US', '2026-11-18', 4, '91.40'),
      row(A, 'US', '2026-11-19', 2, '10.00'),
      row(B, 'UK', '2026-11-18', 1, '2.00'),
      row(B, 'UK', '2026-11-19', 1, '3.00'),
      row(C, 'US', '2026-11-19', 1, '1.00'),
    ];
    const figures = computeFigures(inputs({ day: DAY, nowMs: NOW, previous, sales: { ...SALES, rows } }));
    expect(okSales(figures).revisions).toEqual([
      { asin: A, marketplace: 'US', date: '2026-11-17', kind: 'withdrawn', royalties: 500, currency: 'USD' },
      {
        asin: A,
        marketplace: 'US',
        date: '2026-11-18',
        kind: 'revised',
        field: 'royalties',
        before: 8712,
        after: 9140,
        currency: 'USD',
      },
      {
        asin: A,
        marketplace: 'US',
        date: '2026-11-18',
        kind: 'revised',
        field: 'units',
        before: 3,
        after: 4,
        currency: null,
      },
      { asin: B, marketplace: 'UK', date: '2026-11-19', kind: 'late', royalties: 300, currency: 'GBP' },
    ]);
    expect(okSales(figures).revisionTotals).toEqual([
      { currency: 'GBP', royalties: 300, figures: 1 },
      { currency: 'USD', royalties: -72, figures: 2 },
    ]);
    const { text, html } = render(figures);
    expect(text).toContain(
      'In all: royalties +3.00 GBP over 1 revised figure; royalties -0.72 USD over 2 revised figures',
    );
    expect(text).toContain('Royalties for B0AAAAAAAA US on 2026-11-18 revised 87.12 → 91.40 USD');
    expect(text).toContain('Units for B0AAAAAAAA US on 2026-11-18 revised 3 → 4');
    expect(text).toContain(
      'B0AAAAAAAA US on 2026-11-17 no longer reported (was royalties 5.00 USD); now no data',
    );
    expect(text).toContain('B0BBBBBBBB UK on 2026-11-19 reported late: royalties 3.00 GBP (was no data)');
    expect(html).toContain('Royalties for B0AAAAAAAA US on 2026-11-18 revised 87.12 → 91.40 USD');
    expect(figures.quiet).toBe(false);
  });

  it('shows a day the API did not return as "no data", never as 0', () => {
    const rows = [
      row(A, 'US', DAY, 2, '6.00'),
      row(A, 'US', '2026-11-19', 1, '3.00'),
      row(B, 'US', '2026-11-20', 1, '2.50'),
    ];
    const expectedPairs = [
      { asin: A, marketplace: 'US' },
      { asin: B, marketplace: 'US' },
      { asin: C, marketplace: 'UK' },
    ];
    const figures = computeFigures(
      inputs({ day: DAY, nowMs: NOW, expectedPairs, sales: { ...SALES, rows } }),
    );
    const sales = okSales(figures);
    expect(sales.missingYesterday).toEqual([
      { asin: B, marketplace: 'US' },
      { asin: C, marketplace: 'UK' },
    ]);
    const b = sales.pairs.find((p) => p.asin === B);
    expect(b?.yesterday).toBeNull();
    expect(b?.week?.daysWithData).toBe(1);
    expect(sales.pairs.find((p) => p.asin === A)?.week?.daysWithData).toBe(2);
    expect(sales.totals[0]?.yesterday?.pairs).toBe(1);
    expect(sales.totals[0]?.daily).toEqual([null, null, null, null, 300, 250, 600]);
    const { text } = render(figures);
    expect(text).toContain('No data for Sat 21 Nov (not 0 — the API returned no figures):');
    expect(text).toMatch(/B0BBBBBBBB US +no data +/);
    expect(text).not.toMatch(/royalties 0\.00/);

    const nothing = computeFigures(
      inputs({
        day: DAY,
        nowMs: NOW,
        expectedPairs,
        sales: { ...SALES, rows: [row(A, 'US', '2026-11-19', 1, '3.00')] },
      }),
    );
    expect(okSales(nothing).totals[0]?.yesterday).toBeNull();
    expect(render(nothing).subject).toBe('Daily digest for acme — Sat 21 Nov: no sales data, no new reviews');
    expect(render(nothing).text).toMatch(/ {2}Royalties +no data +/);
  });

  it('says "sales data unavailable (reason)" when the fetch failed, with no figures at all', () => {
    const figures = computeFigures(
      inputs({
        day: DAY,
        nowMs: NOW,
        sales: { status: 'unavailable', reason: 'TransientError: 503 unavailable' },
      }),
    );
    const { subject, text, html } = render(figures);
    expect(subject).toBe('Daily digest for acme — Sat 21 Nov: sales data unavailable, no new reviews');
    expect(text).toContain('Sales data unavailable (TransientError: 503 unavailable)');
    expect(html).toContain('Sales data unavailable (TransientError: 503 unavailable)');
    expect(text).not.toMatch(/\b0(\.00)? (USD|units?)\b/);
    expect(figures.quiet).toBe(false);
  });

  it('lists sales movers against the mean of the days with data before, leaving gaps out', () => {
    const rows = [
      row(A, 'US', '2026-11-15', 1, '10.00'),
      row(A, 'US', '2026-11-17', 1, '10.00'),
      row(A, 'US', '2026-11-20', 1, '10.00'),
      row(A, 'US', DAY, 3, '25.00'),
      row(B, 'US', '2026-11-18', 1, '10.00'),
      row(B, 'US', '2026-11-19', 1, '10.00'),
      row(B, 'US', '2026-11-20', 1, '10.00'),
      row(B, 'US', DAY, 1, '11.00'),
    ];
    const sales = okSales(computeFigures(inputs({ day: DAY, nowMs: NOW, sales: { ...SALES, rows } })));
    // A: (10 + 10 + 10) / 3 days with data, not / 7: +150%. B: +10%, not a mover.
    expect(sales.movers).toEqual([
      { asin: A, marketplace: 'US', currency: 'USD', yesterday: 2500, baseline: 1000, changePct: 150 },
    ]);
  });
});
