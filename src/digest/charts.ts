/**
 * Sparklines: a small SVG rendered to PNG (attached inline, referenced by `cid:`) and the same
 * series as a line of block characters for the text part. Gaps ("no data") stay gaps, in both.
 * BSR is drawn on a log scale with the axis inverted, so up is always better.
 */
import { Resvg } from '@resvg/resvg-js';
import { amount } from '../util/format.ts';
import { rankChartSvg } from '../util/rank-chart.ts';
import { median } from '../util/stats.ts';
import {
  AXIS_CHART_HEIGHT,
  AXIS_CHART_WIDTH,
  axisChartSvg,
  CHART_FONT_FAMILY,
  gappedLineSvg,
  renderChartPng,
} from './axis-chart.ts';
import type { BsrLine, DigestFigures } from './types.ts';

export const CHART_WIDTH = 240;
export const CHART_HEIGHT = 48;
/** Images per digest: one per currency and up to this many BSR charts (movers first). */
export const MAX_BSR_CHARTS = 8;
const PAD = 4;
const BLOCKS = '▁▂▃▄▅▆▇█';

export interface SparkOptions {
  /** Plot log10 of the values (ranks). */
  log?: boolean;
  /** Lower values are better and drawn higher (ranks). */
  invert?: boolean;
}

export interface DigestChart {
  /** Content-ID without angle brackets; the HTML says `cid:<this>`. */
  cid: string;
  filename: string;
  alt: string;
  /** Unicode fallback for the text part. */
  text: string;
  png: Buffer;
  width: number;
  height: number;
}

/** Each value's height in 0..1 (1 = top of the chart), or null for a gap. */
function levels(values: readonly (number | null)[], options: SparkOptions): (number | null)[] {
  const scaled = values.map((v) =>
    v === null ? null : options.log === true ? Math.log10(Math.max(1, v)) : v,
  );
  const known = scaled.filter((v): v is number => v !== null);
  if (known.length === 0) return scaled.map(() => null);
  const min = Math.min(...known);
  const max = Math.max(...known);
  return scaled.map((v) => {
    if (v === null) return null;
    const share = max === min ? 0.5 : (v - min) / (max - min);
    return options.invert === true ? 1 - share : share;
  });
}

export function sparklineSvg(
  values: readonly (number | null)[],
  options: SparkOptions & { color?: string; width?: number; height?: number } = {},
): string {
  const width = options.width ?? CHART_WIDTH;
  const height = options.height ?? CHART_HEIGHT;
  const color = options.color ?? '#2563eb';
  const ys = levels(values, options);
  const step = ys.length > 1 ? (width - 2 * PAD) / (ys.length - 1) : 0;
  const point = (i: number, level: number) =>
    `${(PAD + i * step).toFixed(1)},${(height - PAD - level * (height - 2 * PAD)).toFixed(1)}`;
  const shapes = gappedLineSvg(
    ys.map((level, i) => (level === null ? null : point(i, level))),
    color,
  );
  const lastIndex = ys.findLastIndex((l) => l !== null);
  const last = ys[lastIndex];
  if (last !== undefined && last !== null) {
    const [x, y] = point(lastIndex, last).split(',');
    shapes.push(`<circle cx="${x}" cy="${y}" r="2.5" fill="${color}"/>`);
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}"><rect width="${width}" height="${height}" fill="#ffffff"/>${shapes.join('')}</svg>`;
}

export function renderPng(svg: string): Buffer {
  return new Resvg(svg, { font: { loadSystemFonts: false }, fitTo: { mode: 'original' } }).render().asPng();
}

/** At most `max` values: each bucket's median, null when the whole bucket is a gap. */
export function downsample(values: readonly (number | null)[], max: number): (number | null)[] {
  if (values.length <= max) return [...values];
  const out: (number | null)[] = [];
  for (let b = 0; b < max; b++) {
    const bucket = values.slice(
      Math.floor((b * values.length) / max),
      Math.floor(((b + 1) * values.length) / max),
    );
    out.push(median(bucket.filter((v): v is number => v !== null)));
  }
  return out;
}

/** `▁▃▅█·▇`: one block per value, `·` for no data. */
export function unicodeSparkline(values: readonly (number | null)[], options: SparkOptions = {}): string {
  return levels(values, options)
    .map((level) => (level === null ? '·' : BLOCKS[Math.min(7, Math.round(level * 7))]))
    .join('');
}

function rankText(rank: number | null): string {
  return rank === null ? 'no rank' : `#${Math.round(rank).toLocaleString('en-US')}`;
}

/** `2026-11-21` → `21 Nov` (a calendar date: no zone to convert). */
function dayLabel(date: string): string {
  const ms = Date.parse(`${date}T12:00:00Z`);
  if (!Number.isFinite(ms)) return date;
  return new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'short' }).format(ms);
}

/** First, middle and last index, each once. */
function tickIndexes(length: number): number[] {
  if (length === 0) return [];
  return [...new Set([0, Math.floor(length / 2), length - 1])];
}

function bsrChart(line: BsrLine, timeZone: string): DigestChart {
  const ranks = line.history.map((p) => p.rank);
  const spark = { log: true, invert: true };
  const known = ranks.filter((r): r is number => r !== null);
  const name = line.title === null ? line.asin : `${line.title} (${line.asin})`;
  // The console's rank chart (one renderer for both), at the digest's image size and font.
  const first = line.history[0]?.at ?? 0;
  const { svg } = rankChartSvg({
    title: `${line.title ?? line.asin} · ${line.marketplace} · best-seller rank`,
    series: [{ name, points: line.history }],
    fromMs: first,
    toMs: line.history.at(-1)?.at ?? first,
    width: AXIS_CHART_WIDTH,
    height: AXIS_CHART_HEIGHT,
    fontFamily: CHART_FONT_FAMILY,
    caption: true,
    legend: false,
    timeZone,
  });
  return {
    cid: `bsr-${line.asin}-${line.marketplace}@shelfwatch`,
    filename: `bsr-${line.asin}-${line.marketplace}.png`,
    alt: `Best-seller rank of ${name} in ${line.marketplace}, hourly over two days, higher is better: ${rankText(known[0] ?? null)} to ${rankText(known.at(-1) ?? null)}`,
    text: unicodeSparkline(downsample(ranks, 24), spark),
    png: renderChartPng(svg),
    width: AXIS_CHART_WIDTH,
    height: AXIS_CHART_HEIGHT,
  };
}

export interface DigestCharts {
  /** Keyed by `ASIN|MARKETPLACE`. */
  bsr: Map<string, DigestChart>;
  /** Keyed by currency. */
  royalties: Map<string, DigestChart>;
}

export function digestCharts(figures: DigestFigures): DigestCharts {
  const royalties = new Map<string, DigestChart>();
  if (figures.sales.status === 'ok') {
    const { dates } = figures.sales;
    for (const total of figures.sales.totals) {
      const days = total.daily.filter((v) => v !== null).length;
      royalties.set(total.currency, {
        cid: `royalties-${total.currency}@shelfwatch`,
        filename: `royalties-${total.currency}.png`,
        alt: `Daily royalties in ${total.currency}, ${dates[0]} to ${dates.at(-1)} (${days} of ${dates.length} days with data): ${total.daily.map((v) => (v === null ? 'no data' : amount(v, total.currency))).join(', ')}`,
        text: unicodeSparkline(total.daily),
        png: renderChartPng(
          axisChartSvg({
            values: total.daily,
            xLabels: tickIndexes(dates.length).map((i) => ({ index: i, label: dayLabel(dates[i] ?? '') })),
            formatValue: (v) => `${amount(v, total.currency)} ${total.currency}`,
            caption: `Royalties per day · ${total.currency}`,
            color: '#059669',
          }),
        ),
        width: AXIS_CHART_WIDTH,
        height: AXIS_CHART_HEIGHT,
      });
    }
  }
  const bsr = new Map<string, DigestChart>();
  const chosen = [...figures.bsr.movers, ...figures.bsr.books].filter((l) =>
    l.history.some((p) => p.rank !== null),
  );
  for (const line of chosen) {
    const key = `${line.asin}|${line.marketplace}`;
    if (bsr.size >= MAX_BSR_CHARTS) break;
    if (!bsr.has(key)) bsr.set(key, bsrChart(line, figures.timeZone));
  }
  return { bsr, royalties };
}
