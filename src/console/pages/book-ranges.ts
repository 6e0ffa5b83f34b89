/** The book page's ranges (links that work without script) and its Keepa-style figures. */
import type { RankStats } from '../../history/stats.ts';
import { chartFormats } from '../../util/rank-chart.ts';
import { DAY_MS } from '../../util/time-units.ts';
import { html, type SafeHtml } from '../html.ts';
import { viewerZone } from '../viewer-zone.ts';

export const RANGES = [
  { id: '7d', label: '7 d', days: 7 },
  { id: '30d', label: '30 d', days: 30 },
  { id: '90d', label: '90 d', days: 90 },
  { id: '1y', label: '1 y', days: 365 },
  { id: 'all', label: 'all', days: undefined },
] as const;

export type RangeId = (typeof RANGES)[number]['id'];
export const DEFAULT_RANGE: RangeId = '30d';

/** The range a `?range=` asks for (unknown: the default) and where it starts; `all` is the retention. */
export function rangeOf(text: unknown, nowMs: number, retentionMs: number): { id: RangeId; fromMs: number } {
  const range = RANGES.find((r) => r.id === text) ?? RANGES.find((r) => r.id === DEFAULT_RANGE);
  const days = range?.days;
  return {
    id: range?.id ?? DEFAULT_RANGE,
    fromMs: nowMs - (days === undefined ? retentionMs : Math.min(days * DAY_MS, retentionMs)),
  };
}

export function rangeLinks(path: string, current: RangeId): SafeHtml {
  return html`<nav class="ranges" aria-label="Range">${RANGES.map((r) =>
    r.id === current
      ? html`<a href="${path}?range=${r.id}" aria-current="page" class="current">${r.label}</a> `
      : html`<a href="${path}?range=${r.id}">${r.label}</a> `,
  )}</nav>`;
}

/** Current rank, averages, best and worst with dates, rank drops: numbers in the viewer's locale. */
export function statsTable(stats: RankStats, locale: string): SafeHtml {
  const f = chartFormats(locale, viewerZone());
  const at = (x: { rank: number; at: number } | null) =>
    x === null ? '—' : `${f.rank(x.rank)} (${f.date(x.at)})`;
  const avg = (v: number | null) => (v === null ? '—' : f.rank(Math.round(v)));
  return html`<table class="stats"><caption>BSR figures (averages of daily medians)</caption>
<thead><tr><th scope="col">Current</th><th scope="col">Avg 30 d</th><th scope="col">Avg 90 d</th><th scope="col">Avg 180 d</th><th scope="col">Avg 365 d</th><th scope="col">Best</th><th scope="col">Worst</th><th scope="col">Rank drops 30 d</th><th scope="col">Rank drops 90 d</th></tr></thead>
<tbody><tr><td>${at(stats.current)}</td><td>${avg(stats.averages[30])}</td><td>${avg(stats.averages[90])}</td><td>${avg(stats.averages[180])}</td><td>${avg(stats.averages[365])}</td><td>${at(stats.best)}</td><td>${at(stats.worst)}</td><td>${f.number(stats.drops30)}</td><td>${f.number(stats.drops90)}</td></tr></tbody></table>`;
}

/** Download links: each table of the book and of its workspace, CSV and JSON, over the range shown. */
export function exportLinks(bookPath: string, workspace: string, range: RangeId): SafeHtml {
  const tables = [
    { id: 'ranks', label: 'Rank history (BSR, keywords, comps)' },
    { id: 'sales', label: 'Sales days' },
    { id: 'alerts', label: 'Alert log' },
  ];
  const links = (base: string, table: string) =>
    html`<a href="${base}/${table}.csv?range=${range}" download>CSV</a> · <a href="${base}/${table}.json?range=${range}" download>JSON</a>`;
  const wsBase = `/export/${encodeURIComponent(workspace)}`;
  return html`<table class="exports"><thead><tr><th scope="col">Table</th><th scope="col">This book</th><th scope="col">Workspace ${workspace}</th></tr></thead><tbody>${tables.map(
    (t) =>
      html`<tr><td>${t.label}</td><td>${links(`${bookPath}/export`, t.id)}</td><td>${links(wsBase, t.id)}</td></tr>`,
  )}</tbody></table>`;
}
