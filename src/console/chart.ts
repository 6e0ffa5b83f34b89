/**
 * Rank charts as server-side SVG: no script, so the page's CSP stays strict, and every label and
 * tooltip (`<title>`) goes through the same escaping as the rest of the page.
 */
import type { RankPoint } from '../model/observation.ts';
import { html, type SafeHtml, timeText } from './html.ts';

export interface ChartMarker {
  at: number;
  label: string;
  severity: string;
}

const W = 800;
const H = 220;
const PAD = { left: 56, right: 12, top: 12, bottom: 28 };

/** Rank 1 at the top: a drop in rank is a line going down, as people read rank charts. */
export function rankChart(input: {
  title: string;
  points: readonly RankPoint[];
  markers: readonly ChartMarker[];
  fromMs: number;
  toMs: number;
}): SafeHtml {
  const ranked = input.points.filter((p): p is { at: number; rank: number } => p.rank !== null);
  const worst = Math.max(10, ...ranked.map((p) => p.rank));
  const best = Math.min(worst - 1, ...ranked.map((p) => p.rank));
  const span = Math.max(1, input.toMs - input.fromMs);
  const x = (at: number) => PAD.left + ((at - input.fromMs) / span) * (W - PAD.left - PAD.right);
  const y = (rank: number) =>
    PAD.top + ((rank - best) / Math.max(1, worst - best)) * (H - PAD.top - PAD.bottom);
  const path = ranked.map((p) => `${x(p.at).toFixed(1)},${y(p.rank).toFixed(1)}`).join(' ');
  const first = ranked[0];
  const last = ranked.at(-1);
  const summary =
    first === undefined || last === undefined
      ? `${input.title}: no data in this window`
      : `${input.title}: from ${first.rank} on ${timeText(first.at)} to ${last.rank} on ${timeText(last.at)}, best ${best}, worst ${worst}, ${input.markers.length} alerts`;
  return html`<figure>
<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${summary}">
<title>${summary}</title>
<line x1="${PAD.left}" y1="${H - PAD.bottom}" x2="${W - PAD.right}" y2="${H - PAD.bottom}" stroke="#dde1e8"/>
<text x="4" y="${PAD.top + 10}">#${best}</text><text x="4" y="${H - PAD.bottom}">#${worst}</text>
<text x="${PAD.left}" y="${H - 8}">${timeText(input.fromMs)}</text>
<text x="${W - PAD.right}" y="${H - 8}" text-anchor="end">${timeText(input.toMs)}</text>
${input.markers.map(
  (m) =>
    html`<g class="marker"><line x1="${x(m.at).toFixed(1)}" y1="${PAD.top}" x2="${x(m.at).toFixed(1)}" y2="${H - PAD.bottom}" stroke="${m.severity === 'critical' ? '#c0262d' : '#b26a00'}" stroke-dasharray="4 3"/><circle cx="${x(m.at).toFixed(1)}" cy="${PAD.top + 4}" r="5" fill="${m.severity === 'critical' ? '#c0262d' : '#b26a00'}"><title>${timeText(m.at)}: ${m.label}</title></circle></g>`,
)}
${ranked.length > 1 ? html`<polyline points="${path}" fill="none" stroke="#2957d6" stroke-width="2"/>` : ''}
${ranked.map((p) => html`<circle cx="${x(p.at).toFixed(1)}" cy="${y(p.rank).toFixed(1)}" r="${ranked.length > 60 ? 1.5 : 3}" fill="#2957d6"><title>${timeText(p.at)}: #${p.rank}</title></circle>`)}
</svg>
<figcaption>${input.title}</figcaption>
</figure>`;
}
