/**
 * The one rank chart, as SVG text: the console puts it in its pages, the digest renders it to PNG.
 * Rank 1 at the top (a drop is a line going down); round y ticks with the viewer's thousands
 * separators and gridlines, on a log scale when the ranks span a factor of 20 or more; the domain
 * always includes each marker's baseline (the rank an alert compared against), so a drop from #1
 * to #46 is drawn from #1, with the marker at the observed rank. Several series share the axes (a
 * book and its comps). Every text (titles, keywords are untrusted) is escaped; the summary is the
 * text alternative, read in the viewer's locale.
 */
import { escapeHtml } from './html.ts';
import { linearTicks, logTicks, timeTicks } from './ticks.ts';
import { DAY_MS } from './time-units.ts';

export interface ChartSeries {
  /** Untrusted (a comp's title, a keyword). */
  name: string;
  points: readonly { at: number; rank: number | null }[];
  /** Days kept as a summary: drawn as a bar from the day's best to its worst rank. */
  days?: readonly { day: number; min: number | null; max: number | null }[];
}

export interface RankMarker {
  at: number;
  /** The rank the alert observed (the marker sits there). */
  rank: number | null;
  /** The rank it compared against (always inside the axis). */
  baseline?: number | null;
  label: string;
  severity: string;
}

export interface RankChartOptions {
  /** Untrusted: escaped. */
  title: string;
  series: readonly ChartSeries[];
  markers?: readonly RankMarker[];
  fromMs: number;
  toMs: number;
  /** The viewer's locale (BCP 47) for numbers and dates; en-US when absent or unknown. */
  locale?: string;
  /** The zone dates are read in (default UTC). */
  timeZone?: string;
  width?: number;
  height?: number;
  fontFamily?: string;
  /** A legend line naming each series by colour (off for one series). */
  legend?: boolean;
  /** Draw the title above the plot (an image has no caption of its own: the digest's PNGs). */
  caption?: boolean;
}

export interface RankChart {
  svg: string;
  /** The chart in words: what each line did, best and worst with dates, the alerts. */
  summary: string;
}

export const SERIES_COLORS = ['#2957d6', '#c2410c', '#15803d', '#7c3aed', '#b45309', '#0e7490', '#be185d'];
const POINTS_WITH_TITLES = 400;

/** Text inside SVG markup: the five XML specials escaped (the one HTML escaper), control characters dropped. */
export function escapeSvgText(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes.
  return escapeHtml(text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, ''));
}

function supported(locale: string | undefined): string {
  if (locale === undefined) return 'en-US';
  try {
    return Intl.NumberFormat.supportedLocalesOf([locale])[0] ?? 'en-US';
  } catch {
    return 'en-US';
  }
}

/** Formatters of one locale: rank numbers with its grouping, dates in UTC. */
export function chartFormats(localeText?: string, timeZone = 'UTC') {
  const locale = supported(localeText);
  const number = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });
  const date = new Intl.DateTimeFormat(locale, { timeZone, dateStyle: 'medium' });
  const day = new Intl.DateTimeFormat(locale, { timeZone, day: 'numeric', month: 'short' });
  const month = new Intl.DateTimeFormat(locale, { timeZone, month: 'short', year: 'numeric' });
  const hour = new Intl.DateTimeFormat(locale, { timeZone, hour: '2-digit', minute: '2-digit' });
  const time = new Intl.DateTimeFormat(locale, { timeZone, dateStyle: 'medium', timeStyle: 'short' });
  return {
    locale,
    rank: (rank: number | null) => (rank === null ? 'unranked' : `#${number.format(rank)}`),
    number: (n: number) => number.format(n),
    date: (ms: number) => date.format(ms),
    time: (ms: number) => `${time.format(ms)}${timeZone === 'UTC' ? ' UTC' : ''}`,
    tick: (ms: number, spanMs: number) =>
      spanMs <= 2 * DAY_MS ? hour.format(ms) : spanMs > 200 * DAY_MS ? month.format(ms) : day.format(ms),
  };
}

/** The y domain: every rank drawn and every baseline, padded so a move of one place is not the whole height. */
function domain(ranks: readonly number[]): { ticks: number[]; lo: number; hi: number; log: boolean } {
  if (ranks.length === 0) return { ...linearTicks(1, 10), log: false };
  let lo = Math.min(...ranks);
  let hi = Math.max(...ranks);
  if (hi / lo >= 20) return { ...logTicks(lo, hi), log: true };
  const pad = Math.max(2, hi * 0.1);
  if (hi - lo < pad * 2) {
    lo = Math.max(1, lo - pad);
    hi += pad;
  }
  const ticks = linearTicks(lo, hi, 5);
  const floor = Math.max(1, ticks.lo);
  return { ticks: ticks.ticks.filter((t) => t >= floor), lo: floor, hi: ticks.hi, log: false };
}

export function rankChartSvg(options: RankChartOptions): RankChart {
  const W = options.width ?? 800;
  const H = options.height ?? 240;
  const legend = options.legend ?? options.series.length > 1;
  const pad = { left: 64, right: 16, top: legend || options.caption === true ? 30 : 12, bottom: 26 };
  const font = options.fontFamily ?? 'system-ui, sans-serif';
  const f = chartFormats(options.locale, options.timeZone);
  const markers = options.markers ?? [];
  const ranks: number[] = [];
  for (const s of options.series) {
    for (const p of s.points) if (p.rank !== null) ranks.push(p.rank);
    for (const d of s.days ?? []) for (const r of [d.min, d.max]) if (r !== null) ranks.push(r);
  }
  for (const m of markers)
    for (const r of [m.rank, m.baseline]) if (r !== null && r !== undefined) ranks.push(r);
  const axis = domain(ranks);
  const scale = (r: number) => (axis.log ? Math.log10(Math.max(1, r)) : r);
  const [sLo, sHi] = [scale(axis.lo), scale(axis.hi)];
  const plotW = W - pad.left - pad.right;
  const plotH = H - pad.top - pad.bottom;
  const span = Math.max(1, options.toMs - options.fromMs);
  const x = (at: number) => (pad.left + ((at - options.fromMs) / span) * plotW).toFixed(1);
  const y = (rank: number) =>
    (pad.top + ((scale(rank) - sLo) / Math.max(1e-9, sHi - sLo)) * plotH).toFixed(1);
  const text = (tx: number | string, ty: number | string, body: string, attrs = '', fill = '#4b5563') =>
    `<text x="${tx}" y="${ty}" font-family="${font}" font-size="11" fill="${fill}"${attrs}>${escapeSvgText(body)}</text>`;
  const parts: string[] = [`<rect width="${W}" height="${H}" fill="#ffffff"/>`];
  if (options.caption === true) {
    const chars = Array.from(options.title);
    parts.push(
      text(4, 14, chars.length > 64 ? `${chars.slice(0, 63).join('')}…` : options.title, '', '#1c1917'),
    );
  }
  for (const tick of axis.ticks) {
    parts.push(
      `<line class="grid" x1="${pad.left}" y1="${y(tick)}" x2="${W - pad.right}" y2="${y(tick)}" stroke="#e5e7eb"/>`,
      text(pad.left - 6, Number(y(tick)) + 4, f.rank(tick), ' text-anchor="end" class="ytick"'),
    );
  }
  for (const tick of timeTicks(options.fromMs, options.toMs)) {
    parts.push(
      `<line class="grid" x1="${x(tick)}" y1="${pad.top}" x2="${x(tick)}" y2="${H - pad.bottom}" stroke="#f3f4f6"/>`,
      text(x(tick), H - 8, f.tick(tick, span), ' text-anchor="middle"'),
    );
  }
  parts.push(
    `<line x1="${pad.left}" y1="${H - pad.bottom}" x2="${W - pad.right}" y2="${H - pad.bottom}" stroke="#9ca3af"/>`,
  );
  options.series.forEach((s, i) => {
    const color = SERIES_COLORS[i % SERIES_COLORS.length] ?? '#2957d6';
    const width = i === 0 ? 2 : 1.5;
    for (const d of s.days ?? []) {
      if (d.min === null) continue;
      const at = x(d.day + DAY_MS / 2);
      parts.push(
        `<line x1="${at}" y1="${y(d.min)}" x2="${at}" y2="${y(d.max ?? axis.hi)}" stroke="${color}" stroke-opacity="0.25" stroke-width="2"/>`,
      );
    }
    let run: string[] = [];
    const flush = () => {
      if (run.length === 1) {
        const [cx, cy] = (run[0] ?? '0,0').split(',');
        parts.push(`<circle cx="${cx}" cy="${cy}" r="2" fill="${color}"/>`);
      } else if (run.length > 1)
        parts.push(
          `<polyline class="series" points="${run.join(' ')}" fill="none" stroke="${color}" stroke-width="${width}" stroke-linejoin="round"/>`,
        );
      run = [];
    };
    const shown = s.points.filter((p) => p.at >= options.fromMs && p.at <= options.toMs);
    for (const p of shown) {
      if (p.rank === null) flush();
      else run.push(`${x(p.at)},${y(p.rank)}`);
    }
    flush();
    // Few enough points to hover: each with its value (a year of hours would only weigh the page).
    if (shown.length <= POINTS_WITH_TITLES)
      for (const p of shown)
        if (p.rank !== null)
          parts.push(
            `<circle cx="${x(p.at)}" cy="${y(p.rank)}" r="2.5" fill="${color}"><title>${escapeSvgText(`${f.time(p.at)}: ${f.rank(p.rank)}`)}</title></circle>`,
          );
    if (legend && options.caption !== true) {
      const lx = pad.left + (i % 4) * Math.floor(plotW / 4);
      const ly = 12 + Math.floor(i / 4) * 0;
      const name = Array.from(s.name).length > 28 ? `${Array.from(s.name).slice(0, 27).join('')}…` : s.name;
      if (i < 4)
        parts.push(
          `<rect x="${lx}" y="${ly - 8}" width="10" height="10" fill="${color}"/>`,
          text(lx + 14, ly + 1, name, ' class="legend"'),
        );
    }
  });
  for (const m of markers) {
    const color = m.severity === 'critical' ? '#c0262d' : '#b26a00';
    parts.push(
      '<g class="marker">',
      `<line x1="${x(m.at)}" y1="${pad.top}" x2="${x(m.at)}" y2="${H - pad.bottom}" stroke="${color}" stroke-dasharray="4 3"/>`,
    );
    if (m.baseline !== undefined && m.baseline !== null && m.rank !== null)
      parts.push(
        `<line class="drop" x1="${x(m.at)}" y1="${y(m.baseline)}" x2="${x(m.at)}" y2="${y(m.rank)}" stroke="${color}" stroke-width="3"/>`,
        `<circle class="baseline" cx="${x(m.at)}" cy="${y(m.baseline)}" r="4" fill="#ffffff" stroke="${color}" stroke-width="2"/>`,
      );
    const cy = m.rank === null ? pad.top + plotH : Number(y(m.rank));
    const label = `${f.date(m.at)}: ${m.label}${m.baseline === undefined || m.baseline === null ? '' : ` (${f.rank(m.baseline)} → ${f.rank(m.rank)})`}`;
    parts.push(
      `<circle class="observed" cx="${x(m.at)}" cy="${cy.toFixed(1)}" r="5" fill="${color}" data-rank="${m.rank ?? ''}"><title>${escapeSvgText(label)}</title></circle>`,
      '</g>',
    );
  }
  const summary = summarise(options, f, markers.length);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeSvgText(summary)}" data-scale="${axis.log ? 'log' : 'linear'}" data-top="${axis.lo}" data-bottom="${axis.hi}"><title>${escapeSvgText(summary)}</title>${parts.join('')}</svg>`;
  return { svg, summary };
}

function summarise(options: RankChartOptions, f: ReturnType<typeof chartFormats>, alerts: number): string {
  const lines = options.series.map((s) => {
    const ranked = s.points.filter((p): p is { at: number; rank: number } => p.rank !== null);
    const first = ranked[0];
    const last = ranked.at(-1);
    if (first === undefined || last === undefined) return `${s.name}: no data in this range`;
    let best = first;
    let worst = first;
    for (const p of ranked) {
      if (p.rank < best.rank) best = p;
      if (p.rank > worst.rank) worst = p;
    }
    return `${s.name}: ${f.rank(first.rank)} on ${f.date(first.at)} to ${f.rank(last.rank)} on ${f.date(last.at)}, best ${f.rank(best.rank)} on ${f.date(best.at)}, worst ${f.rank(worst.rank)} on ${f.date(worst.at)}`;
  });
  const range = `${f.date(options.fromMs)} to ${f.date(options.toMs)}`;
  return `${options.title}, ${range}. ${lines.join('; ')}. ${f.number(alerts)} alert${alerts === 1 ? '' : 's'}.`;
}
