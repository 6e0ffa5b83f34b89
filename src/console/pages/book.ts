import type { AlertLogEntry } from '../../history/alert-log.ts';
import { rankStats } from '../../history/stats.ts';
import type { SeriesHistory } from '../../history/store.ts';
import type {
  BookObservation,
  KeywordsObservation,
  RankPoint,
  ReviewDetail,
} from '../../model/observation.ts';
import { rankEffectOf } from '../../rules/kinds.ts';
import type { BookKey, BookRanks } from '../book-history.ts';
import { rankChart } from '../chart.ts';
import { html, numberText } from '../html.ts';
import { type PageContext, page } from '../layout.ts';
import { alertRows } from './alerts.ts';
import { exportLinks, type RangeId, rangeLinks, statsTable } from './book-ranges.ts';
import { compsSection, reviewsSection } from './book-sections.ts';

/** Keyword charts drawn on the page; the table lists every keyword. */
const KEYWORD_CHARTS = 6;

export interface BookPageData {
  book: BookKey;
  author?: string;
  snapshot?: BookObservation;
  keywords?: KeywordsObservation;
  ranks: BookRanks;
  alerts: AlertLogEntry[];
  reviews: ReviewDetail[];
  /** Whether the routes hide this review's text in alerts (review-text.ts): then the page hides it too. */
  reviewTextHidden: (review: ReviewDetail) => boolean;
  /** The comp_overtook margin that applies to the book: what "ahead" and "behind" mean. */
  compMargin: number;
  fromMs: number;
  toMs: number;
  range: RangeId;
  /** The viewer's locale (Accept-Language) for numbers and dates in charts and figures. */
  locale: string;
}

const NO_SERIES: SeriesHistory = { points: [], days: [] };

/** The keyword's condition as its latest drop or recovery alert left it. */
function conditionOf(keyword: string, alerts: readonly AlertLogEntry[]): string {
  const latest = alerts.find(
    (a) => a.keyword?.toLowerCase() === keyword.toLowerCase() && rankEffectOf(a.kind)?.of === 'keyword',
  );
  if (latest === undefined) return 'clear';
  return rankEffectOf(latest.kind)?.leaves === 'down' && latest.status === 'firing' ? 'dropped' : 'clear';
}

function change(points: readonly RankPoint[]): string {
  const ranked = points.filter((p) => p.rank !== null);
  const first = ranked[0]?.rank;
  const last = ranked.at(-1)?.rank;
  if (first == null || last == null || ranked.length < 2) return '—';
  const delta = first - last;
  return delta === 0 ? '0' : delta > 0 ? `▲ ${delta}` : `▼ ${-delta}`;
}

export function bookPage(ctx: PageContext, data: BookPageData): string {
  const { book, snapshot, alerts } = data;
  // Each marker sits at the rank the alert observed, with the baseline it compared against in the axis.
  const markers = (keyword?: string) =>
    alerts
      .filter((a) => (keyword === undefined ? rankEffectOf(a.kind)?.of === 'bsr' : a.keyword === keyword))
      .filter((a) => a.observedAt >= data.fromMs && a.observedAt <= data.toMs)
      .map((a) => ({
        at: a.observedAt,
        rank: a.after ?? null,
        ...(a.before === undefined ? {} : { baseline: a.before }),
        label: a.title,
        severity: a.severity,
      }));
  const ranks = data.keywords?.ranks ?? [];
  const path = `/books/${encodeURIComponent(book.workspace)}/${encodeURIComponent(book.asin)}/${encodeURIComponent(book.marketplace)}`;
  const compTitle = new Map((snapshot?.compTitles ?? []).map((c) => [c.asin, c.title]));
  const bsrSeries = [
    { name: snapshot?.title ?? book.asin, ...data.ranks.bsr },
    ...[...data.ranks.comps]
      .filter(([, s]) => s.points.some((p) => p.rank !== null))
      .slice(0, 6)
      .map(([asin, s]) => ({ name: `${compTitle.get(asin) ?? asin} (comp)`, ...s })),
  ];
  const chartRange = { fromMs: data.fromMs, toMs: data.toMs, locale: data.locale };
  const body = html`<p><strong>${snapshot?.title ?? 'Not polled yet'}</strong>${
    snapshot === undefined ? '' : html` by ${snapshot.author}`
  } · ${book.asin} · ${book.marketplace} · workspace ${book.workspace}${data.author === undefined ? '' : html` · routed as ${data.author}`}</p>
<div class="cards">
<div class="card"><h3>BSR now</h3><div class="big">${snapshot?.bsr === null || snapshot === undefined ? '—' : `#${numberText(snapshot.bsr)}`}</div><p class="mute">${snapshot?.bsrCategory ?? ''}</p></div>
<div class="card"><h3>Reviews</h3><div class="big">${numberText(snapshot?.reviewCount)}</div><p class="mute">average ${snapshot?.averageRating ?? '—'}</p></div>
<div class="card"><h3>Alerts in the window</h3><div class="big">${alerts.length}</div></div>
</div>
${rangeLinks(path, data.range)}
<h2>Best-seller rank</h2>
${statsTable(rankStats(data.ranks.bsr, data.toMs), data.locale)}
${rankChart({ title: `BSR of ${book.asin} ${book.marketplace}${bsrSeries.length > 1 ? ' and its comps' : ''}`, series: bsrSeries, markers: markers(), id: 'bsr-chart', ...chartRange })}
<h2>Comps</h2>
${compsSection(snapshot, data.compMargin)}
<h2>Keywords</h2>
${
  ranks.length === 0
    ? html`<p class="mute">No keyword ranks stored yet.</p>`
    : html`<table><thead><tr><th scope="col">Keyword</th><th scope="col">Rank now</th><th scope="col">Change</th><th scope="col">Condition</th></tr></thead><tbody>${ranks.map(
        (k) =>
          html`<tr><td class="text">${k.keyword}</td><td>${k.rank === null ? 'not ranked' : `#${k.rank}`}</td><td>${change(data.ranks.keywords.get(k.keyword)?.points ?? [])}</td><td><span class="pill ${conditionOf(k.keyword, alerts) === 'dropped' ? 'warning' : 'ok'}">${conditionOf(k.keyword, alerts)}</span></td></tr>`,
      )}</tbody></table>
${ranks.slice(0, KEYWORD_CHARTS).map((k) =>
  rankChart({
    title: `Rank for “${k.keyword}”`,
    series: [{ name: k.keyword, ...(data.ranks.keywords.get(k.keyword) ?? NO_SERIES) }],
    markers: markers(k.keyword),
    ...chartRange,
  }),
)}`
}
<h2>Alerts</h2>
${alerts.length === 0 ? html`<p class="mute">No alerts for this book in the log.</p>` : alertRows(alerts.slice(0, 50))}
<h2>Reviews</h2>
${reviewsSection(data.reviews, data.reviewTextHidden)}
<h2>Export</h2>
${exportLinks(path, book.workspace, data.range)}`;
  return page(snapshot?.title ?? `${book.asin} ${book.marketplace}`, ctx, body);
}
