/** The shared rank chart: round ticks with the locale's separators, the baseline in the axis, escaping. */
import { describe, expect, it } from 'vitest';
import { rankChartSvg } from '../../src/util/rank-chart.ts';
import { linearTicks, logTicks } from '../../src/util/ticks.ts';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-20T00:00:00Z');

describe('rank chart', () => {
  it('ticks are round numbers covering the values', () => {
    expect(linearTicks(297_670, 301_200)).toEqual({
      ticks: [297_000, 298_000, 299_000, 300_000, 301_000, 302_000],
      lo: 297_000,
      hi: 302_000,
    });
    expect(logTicks(1, 46)).toEqual({ ticks: [1, 2, 5, 10, 20, 50], lo: 1, hi: 50 });
  });

  it('draws a drop from #1 to #46 from #1, with the marker at the observed rank', () => {
    const points = Array.from({ length: 24 }, (_, h) => ({
      at: T0 + h * HOUR,
      rank: h < 20 ? 45 + (h % 2) : 46,
    }));
    const chart = rankChartSvg({
      title: 'Rank for <b>cozy</b>',
      series: [{ name: 'cozy', points }],
      markers: [{ at: T0 + 20 * HOUR, rank: 46, baseline: 1, label: 'fell', severity: 'warning' }],
      fromMs: T0,
      toMs: T0 + 24 * HOUR,
    });
    expect(chart.svg).toContain('data-top="1"');
    expect(chart.svg).toMatch(/<circle class="baseline" cx="[\d.]+" cy="[\d.]+"/);
    expect(chart.svg).toContain('data-rank="46"');
    // The baseline is drawn at the top of the plot: rank 1 is the axis' first tick.
    const baselineY = Number(/class="baseline" cx="[\d.]+" cy="([\d.]+)"/.exec(chart.svg)?.[1]);
    const observedY = Number(/class="observed" cx="[\d.]+" cy="([\d.]+)"/.exec(chart.svg)?.[1]);
    expect(baselineY).toBeLessThan(observedY);
    expect(chart.svg).not.toContain('<b>cozy</b>');
    expect(chart.svg).toContain('Rank for &lt;b&gt;cozy&lt;/b&gt;');
  });

  it('labels the y axis with the viewer locale and draws gridlines; reads the values in its words', () => {
    const points = [
      { at: T0, rank: 297_670 },
      { at: T0 + 5 * HOUR, rank: 301_200 },
    ];
    const en = rankChartSvg({
      title: 'BSR',
      series: [{ name: 'Book', points }],
      fromMs: T0,
      toMs: T0 + 6 * HOUR,
    });
    expect(en.svg).toMatch(/class="ytick">#\d{3},000</);
    expect(en.svg.match(/class="grid"/g)?.length).toBeGreaterThan(4);
    expect(en.summary).toContain('#297,670');
    const de = rankChartSvg({
      title: 'BSR',
      series: [{ name: 'Book', points }],
      fromMs: T0,
      toMs: T0 + 6 * HOUR,
      locale: 'de-DE',
    });
    expect(de.summary).toContain('#297.670');
    expect(de.svg).toMatch(/class="ytick">#\d{3}\.000</);
  });

  it('puts a book and its comps on one chart with a legend, a comp without ranks drawing nothing', () => {
    const chart = rankChartSvg({
      title: 'BSR and comps',
      series: [
        {
          name: 'My book',
          points: [
            { at: T0, rank: 900 },
            { at: T0 + HOUR, rank: 950 },
          ],
        },
        {
          name: 'Comp <i>x</i>',
          points: [
            { at: T0, rank: 1_200 },
            { at: T0 + HOUR, rank: 1_100 },
          ],
        },
        { name: 'Unranked comp', points: [{ at: T0, rank: null }] },
      ],
      fromMs: T0,
      toMs: T0 + 2 * HOUR,
    });
    expect(chart.svg.match(/class="series"/g)).toHaveLength(2);
    expect(chart.svg).toContain('Comp &lt;i&gt;x&lt;/i&gt;');
    expect(chart.summary).toContain('Unranked comp: no data in this range');
    expect(chart.summary).not.toMatch(/0\.00/);
  });
});
