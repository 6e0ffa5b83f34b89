/**
 * Which facts an email shows for each alert kind, and how each is formatted. Values are plain
 * text here; the email renderer escapes them.
 */
import type { AlertKind } from '../../model/alert.ts';
import { formatMinor } from '../../util/money.ts';

export const MAX = { body: 2_000, reviewTitle: 300, title: 500, value: 300 } as const;

/** Cuts to at most `max` UTF-16 units including the ellipsis, never between a surrogate pair. */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

const numberFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

export function show(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'number') return numberFormat.format(value);
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return truncateText(String(value), MAX.value);
}
const rank = (v: unknown) => (typeof v === 'number' ? `#${numberFormat.format(v)}` : 'unranked');
const money = (v: unknown, currency: unknown) =>
  typeof v === 'number' && typeof currency === 'string' ? `${formatMinor(v, currency)} ${currency}` : '—';
const change = (before: string, after: string) => `${before} → ${after}`;
export const time = (ms: unknown) =>
  typeof ms === 'number' && Number.isFinite(ms)
    ? `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`
    : '—';

export type Facts = (key: string) => unknown;
type RowSpec = readonly [label: string, format: (f: Facts) => string];
const plain = (label: string, key: string): RowSpec => [label, (f) => show(f(key))];
const ranks = (label: string): RowSpec => [label, (f) => change(rank(f('before')), rank(f('after')))];
const amount = (label: string, key: string): RowSpec => [label, (f) => money(f(key), f('currency'))];
/** `royalties` → royaltiesBefore → royaltiesAfter, in royaltiesCurrency. */
const revised = (label: string, key: string): RowSpec => [
  label,
  (f) => change(money(f(`${key}Before`), f(`${key}Currency`)), money(f(`${key}After`), f(`${key}Currency`))),
];
const stars = (rating: unknown): string => {
  if (typeof rating !== 'number') return show(rating);
  const full = Math.max(0, Math.min(5, Math.round(rating)));
  return `${'★'.repeat(full)}${'☆'.repeat(5 - full)} (${show(rating)}/5)`;
};

const KEYWORD: RowSpec[] = [
  plain('Keyword', 'keyword'),
  ranks('Rank'),
  plain('Positions lost', 'positionsLost'),
];
const BSR: RowSpec[] = [plain('Category', 'category'), ranks('Best-seller rank')];
const REVIEW: RowSpec[] = [
  ['Rating', (f) => stars(f('rating'))],
  plain('Platform', 'platform'),
  plain('Reviewer', 'reviewer'),
  plain('Campaign', 'campaignId'),
  // A time in milliseconds: shown as a number it read "1,795,603,415,000".
  ['Published', (f) => time(f('publishedAt'))],
];

const COMP: RowSpec[] = [
  plain('Comp title', 'compTitle'),
  plain('Comp ASIN', 'compAsin'),
  ['Best-seller rank', (f) => `${rank(f('compBsr'))} (comp) vs ${rank(f('bookBsr'))} (book)`],
];
const SENTIMENT: RowSpec[] = [
  plain('Measure', 'measure'),
  ['Baseline → now', (f) => change(show(f('before')), show(f('after')))],
  plain('Reviews', 'reviewCount'),
];

/** What each kind shows besides the book; which facts each kind carries is in docs/alerts.md. */
const KIND_ROWS: Readonly<Record<AlertKind, readonly RowSpec[]>> = {
  keyword_rank_drop: KEYWORD,
  keyword_rank_recovered: KEYWORD,
  bsr_worsened: BSR,
  bsr_recovered: BSR,
  bsr_removed: BSR,
  bsr_restored: BSR,
  review_new: REVIEW,
  review_removed: REVIEW,
  review_restored: [...REVIEW, ['Removed', (f) => time(f('removedAt'))]],
  review_count_down: [
    ['Reviews', (f) => change(show(f('before')), show(f('after')))],
    plain('Average rating', 'averageRating'),
  ],
  comp_overtook: COMP,
  comp_fell_behind: COMP,
  sentiment_shift: SENTIMENT,
  sentiment_recovered: SENTIMENT,
  royalty_change: [
    plain('Date', 'date'),
    amount('Royalties', 'royalties'),
    amount('Day before', 'dayBefore'),
    amount('Trailing average', 'trailingAverage'),
    plain('Units', 'units'),
    plain('Provisional', 'provisional'),
  ],
  sales_revision: [
    plain('Date', 'date'),
    ['Units', (f) => change(show(f('unitsBefore')), show(f('unitsAfter')))],
    revised('Royalties', 'royalties'),
    revised('Ad spend', 'adSpend'),
    plain('Provisional', 'provisional'),
  ],
  source_health: [
    plain('Target', 'targetId'),
    plain('Failures in a row', 'failures'),
    ['Since', (f) => time(f('since'))],
    plain('Last error', 'lastError'),
  ],
  source_recovered: [
    plain('Target', 'targetId'),
    plain('Failed polls', 'failedPolls'),
    ['Down since', (f) => time(f('since'))],
  ],
};

/** A pause of the whole workspace (`subject.scope`) has no target or streak to show. */
const WORKSPACE_PAUSE_ROWS: readonly RowSpec[] = [
  plain('Paused because', 'pauseReason'),
  ['Since', (f) => time(f('since'))],
  ['Paused until', (f) => time(f('pausedUntil'))],
];

export function rowsOf(alert: { kind: AlertKind; subject: { scope?: string } }): readonly RowSpec[] {
  if (alert.subject.scope === 'workspace' && alert.kind === 'source_health') return WORKSPACE_PAUSE_ROWS;
  if (alert.subject.scope === 'workspace' && alert.kind === 'source_recovered')
    return WORKSPACE_PAUSE_ROWS.slice(0, 2);
  return KIND_ROWS[alert.kind];
}
