/**
 * Rank charts on console pages: the shared renderer (`util/rank-chart.ts`, which the digest uses
 * too) as inline SVG — no script, so the page's CSP stays strict — with its text alternative
 * under the chart. The renderer escapes every text it draws; the caption goes through `html`.
 */
import { type ChartSeries, type RankMarker, rankChartSvg } from '../util/rank-chart.ts';
import { html, type SafeHtml, trustedHtml } from './html.ts';
import { viewerZone } from './viewer-zone.ts';

export type { RankMarker };

export function rankChart(input: {
  title: string;
  series: readonly ChartSeries[];
  markers: readonly RankMarker[];
  fromMs: number;
  toMs: number;
  locale: string;
  id?: string;
}): SafeHtml {
  const chart = rankChartSvg({
    title: input.title,
    series: input.series,
    markers: input.markers,
    fromMs: input.fromMs,
    toMs: input.toMs,
    locale: input.locale,
    // Axis dates and the text alternative in the viewer's zone, as every time on the page.
    timeZone: viewerZone(),
  });
  return html`<figure id="${input.id ?? ''}" class="rank-chart">
${trustedHtml(chart.svg)}
<figcaption>${input.title}<span class="sr-only">: ${chart.summary}</span></figcaption>
</figure>`;
}
