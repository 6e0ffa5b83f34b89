import type { AlertLogEntry } from '../../history/alert-log.ts';
import type {
  BookObservation,
  KeywordsObservation,
  RankPoint,
  ReviewDetail,
} from '../../model/observation.ts';
import type { BookKey } from '../book-history.ts';
import { rankChart } from '../chart.ts';
import { html, numberText } from '../html.ts';
import { type PageContext, page } from '../layout.ts';
import { alertRows } from './alerts.ts';
import { compsSection, reviewsSection } from './book-sections.ts';

/** Keyword charts drawn on the page; the table lists every keyword. */
const KEYWORD_CHARTS = 6;

export interface BookPageData {
  book: BookKey;
  author?: string;
  snapshot?: BookObservation;
  keywords?: KeywordsObservation;
  bsr: RankPoint[];
  keywordHistory: Map<string, RankPoint[]>;
  alerts: AlertLogEntry[];
  reviews: ReviewDetail[];
  /** Whether the routes hide this review's text in alerts (review-text.ts): then the page hides it too. */
  reviewTextHidden: (review: ReviewDetail) => boolean;
  /** The comp_overtook margin that applies to the book: what "ahead" and "behind" mean. */
  compMargin: number;
  fromMs: number;
  toMs: number;
}

/** The keyword's condition as its latest drop or recovery alert left it. */
function conditionOf(keyword: string, alerts: readonly AlertLogEntry[]): string {
  const latest = alerts.find(
    (a) => a.keyword?.toLowerCase() === keyword.toLowerCase() && a.kind.startsWith('keyword_rank'),
  );
  if (latest === undefined) return 'clear';
  return latest.kind === 'keyword_rank_drop' && latest.status === 'firing' ? 'dropped' : 'clear';
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
  const markers = (keyword?: string) =>
    alerts
      .filter((a) => (keyword === undefined ? a.kind.startsWith('bsr') : a.keyword === keyword))
      .map((a) => ({ at: a.observedAt, label: a.title, severity: a.severity }));
  const ranks = data.keywords?.ranks ?? [];
  const body = html`<p><strong>${snapshot?.title ?? 'Not polled yet'}</strong>${
    snapshot === undefined ? '' : html` by ${snapshot.author}`
  } · ${book.asin} · ${book.marketplace} · workspace ${book.workspace}${data.author === undefined ? '' : html` · routed as ${data.author}`}</p>
<div class="cards">
<div class="card"><h3>BSR now</h3><div class="big">${snapshot?.bsr === null || snapshot === undefined ? '—' : `#${numberText(snapshot.bsr)}`}</div><p class="mute">${snapshot?.bsrCategory ?? ''}</p></div>
<div class="card"><h3>Reviews</h3><div class="big">${numberText(snapshot?.reviewCount)}</div><p class="mute">average ${snapshot?.averageRating ?? '—'}</p></div>
<div class="card"><h3>Alerts in the window</h3><div class="big">${alerts.length}</div></div>
</div>
<h2>Best-seller rank</h2>
${rankChart({ title: `BSR of ${book.asin} ${book.marketplace}`, points: data.bsr, markers: markers(), fromMs: data.fromMs, toMs: data.toMs })}
<h2>Comps</h2>
${compsSection(snapshot, data.compMargin)}
<h2>Keywords</h2>
${
  ranks.length === 0
    ? html`<p class="mute">No keyword ranks stored yet.</p>`
    : html`<table><thead><tr><th scope="col">Keyword</th><th scope="col">Rank now</th><th scope="col">Change</th><th scope="col">Condition</th></tr></thead><tbody>${ranks.map(
        (k) =>
          html`<tr><td class="text">${k.keyword}</td><td>${k.rank === null ? 'not ranked' : `#${k.rank}`}</td><td>${change(data.keywordHistory.get(k.keyword) ?? [])}</td><td><span class="pill ${conditionOf(k.keyword, alerts) === 'dropped' ? 'warning' : 'ok'}">${conditionOf(k.keyword, alerts)}</span></td></tr>`,
      )}</tbody></table>
${ranks.slice(0, KEYWORD_CHARTS).map((k) =>
  rankChart({
    title: `Rank for “${k.keyword}”`,
    points: data.keywordHistory.get(k.keyword) ?? [],
    markers: markers(k.keyword),
    fromMs: data.fromMs,
    toMs: data.toMs,
  }),
)}`
}
<h2>Alerts</h2>
${alerts.length === 0 ? html`<p class="mute">No alerts for this book in the log.</p>` : alertRows(alerts.slice(0, 50))}
<h2>Reviews</h2>
${reviewsSection(data.reviews, data.reviewTextHidden)}`;
  return page(snapshot?.title ?? `${book.asin} ${book.marketplace}`, ctx, body);
}
