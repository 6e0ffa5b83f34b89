/**
 * The digest's charts with labelled axes: the value range on the left, dates under the line, the
 * last value written next to its point, and a caption. Text is drawn with DejaVu Sans from the
 * `dejavu-fonts-ttf` package (Bitstream Vera licence: free to use and redistribute) and nothing
 * else: resvg loads no system fonts, so the PNG is the same on every machine, and a machine
 * without fonts still gets its labels.
 */

import { createRequire } from 'node:module';
import { Resvg } from '@resvg/resvg-js';
import { escapeSvgText } from '../util/rank-chart.ts';

export const AXIS_CHART_WIDTH = 420;
export const AXIS_CHART_HEIGHT = 132;
export const CHART_FONT_FAMILY = 'DejaVu Sans';

/** The font file resvg gets; resolved once, from the installed package (not a copy in the repo). */
let fontFile: string | undefined;
export function chartFontFile(): string {
  fontFile ??= createRequire(import.meta.url).resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
  return fontFile;
}

/** Renders an SVG with the bundled font only. */
export function renderChartPng(svg: string): Buffer {
  return new Resvg(svg, {
    font: { loadSystemFonts: false, fontFiles: [chartFontFile()], defaultFontFamily: CHART_FONT_FAMILY },
    fitTo: { mode: 'original' },
  })
    .render()
    .asPng();
}

export { escapeSvgText };

export interface AxisChartOptions {
  values: readonly (number | null)[];
  /** Labels under the x axis, at value indexes (first, middle, last is usual). */
  xLabels: readonly { index: number; label: string }[];
  formatValue: (value: number) => string;
  /** A line above the plot (may be untrusted: a book's title). */
  caption: string;
  color: string;
  /** Plot log10 of the values (ranks). */
  log?: boolean;
  /** Lower values are better and drawn higher (ranks). */
  invert?: boolean;
}

const LEFT = 80;
const RIGHT = 80;
const TOP = 24;
const BOTTOM = 22;
const CAPTION_CHARS = 64;

export function axisChartSvg(options: AxisChartOptions): string {
  const width = AXIS_CHART_WIDTH;
  const height = AXIS_CHART_HEIGHT;
  const plotW = width - LEFT - RIGHT;
  const plotH = height - TOP - BOTTOM;
  const { values, color } = options;
  const scale = (v: number) => (options.log === true ? Math.log10(Math.max(1, v)) : v);
  const known = values.filter((v): v is number => v !== null && Number.isFinite(v));
  const lo = known.length === 0 ? 0 : Math.min(...known);
  const hi = known.length === 0 ? 0 : Math.max(...known);
  const [sLo, sHi] = [scale(lo), scale(hi)];
  /** 0 = bottom, 1 = top. */
  const level = (v: number) => {
    const share = sHi === sLo ? 0.5 : (scale(v) - sLo) / (sHi - sLo);
    return options.invert === true ? 1 - share : share;
  };
  const step = values.length > 1 ? plotW / (values.length - 1) : 0;
  const x = (i: number) => LEFT + (values.length > 1 ? i * step : plotW / 2);
  const y = (v: number) => TOP + (1 - level(v)) * plotH;
  const text = (
    tx: number,
    ty: number,
    body: string,
    style: { anchor?: string; size?: number; fill?: string; bold?: boolean } = {},
  ) =>
    `<text x="${tx.toFixed(1)}" y="${ty.toFixed(1)}" font-family="${CHART_FONT_FAMILY}" font-size="${style.size ?? 10}" fill="${style.fill ?? '#57534e'}" text-anchor="${style.anchor ?? 'start'}"${style.bold === true ? ' font-weight="bold"' : ''}>${escapeSvgText(body)}</text>`;

  const parts: string[] = [`<rect width="${width}" height="${height}" fill="#ffffff"/>`];
  // Cut by code point, so an emoji in a title is never split into half a surrogate pair.
  const chars = Array.from(options.caption);
  const caption =
    chars.length > CAPTION_CHARS ? `${chars.slice(0, CAPTION_CHARS - 1).join('')}…` : options.caption;
  parts.push(text(4, 13, caption, { size: 11, fill: '#1c1917' }));
  // Frame: the plot's top and bottom lines are the two values the axis names.
  parts.push(
    `<line x1="${LEFT}" y1="${TOP}" x2="${LEFT + plotW}" y2="${TOP}" stroke="#e7e5e4"/>`,
    `<line x1="${LEFT}" y1="${TOP + plotH}" x2="${LEFT + plotW}" y2="${TOP + plotH}" stroke="#a8a29e"/>`,
    `<line x1="${LEFT}" y1="${TOP}" x2="${LEFT}" y2="${TOP + plotH}" stroke="#a8a29e"/>`,
  );
  if (known.length > 0) {
    // The value drawn at the top is the best one for ranks (inverted), the highest otherwise.
    const top = options.invert === true ? lo : hi;
    const bottom = options.invert === true ? hi : lo;
    parts.push(text(LEFT - 4, TOP + 4, options.formatValue(top), { anchor: 'end' }));
    if (top !== bottom)
      parts.push(text(LEFT - 4, TOP + plotH, options.formatValue(bottom), { anchor: 'end' }));
  } else {
    parts.push(text(LEFT + plotW / 2, TOP + plotH / 2, 'no data', { anchor: 'middle' }));
  }
  for (const { index, label } of options.xLabels) {
    const anchor = index === 0 ? 'start' : index >= values.length - 1 ? 'end' : 'middle';
    parts.push(
      `<line x1="${x(index).toFixed(1)}" y1="${TOP + plotH}" x2="${x(index).toFixed(1)}" y2="${TOP + plotH + 3}" stroke="#a8a29e"/>`,
    );
    parts.push(text(x(index), height - 6, label, { anchor }));
  }
  parts.push(
    ...gappedLineSvg(
      values.map((v, i) =>
        v === null || !Number.isFinite(v) ? null : `${x(i).toFixed(1)},${y(v).toFixed(1)}`,
      ),
      color,
    ),
  );
  const lastIndex = values.findLastIndex((v) => v !== null && Number.isFinite(v));
  const last = values[lastIndex];
  if (last !== undefined && last !== null) {
    parts.push(
      `<circle cx="${x(lastIndex).toFixed(1)}" cy="${y(last).toFixed(1)}" r="2.5" fill="${color}"/>`,
    );
    parts.push(text(x(lastIndex) + 6, y(last) + 4, options.formatValue(last), { bold: true, fill: color }));
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${parts.join('')}</svg>`;
}

/**
 * A data line split at gaps ("no data" stays a gap, never a slope): a polyline for each run of
 * points and a dot for a lone one. Points are SVG "x,y" text; null is a gap.
 */
export function gappedLineSvg(points: readonly (string | null)[], color: string): string[] {
  const shapes: string[] = [];
  let run: string[] = [];
  const flush = () => {
    if (run.length === 1) {
      const [cx, cy] = (run[0] ?? '0,0').split(',');
      shapes.push(`<circle cx="${cx}" cy="${cy}" r="1.5" fill="${color}"/>`);
    } else if (run.length > 1) {
      shapes.push(
        `<polyline points="${run.join(' ')}" fill="none" stroke="${color}" stroke-width="1.5" stroke-linejoin="round"/>`,
      );
    }
    run = [];
  };
  for (const point of points) {
    if (point === null) flush();
    else run.push(point);
  }
  flush();
  return shapes;
}
