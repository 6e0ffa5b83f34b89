/**
 * Which facts an email shows for each alert kind, and how each is formatted. Values are plain
 * text here; the email renderer escapes them.
 */
import type { AlertKind } from '../../model/alert.ts';
import { stars } from '../../util/format.ts';
import { formatMinor } from '../../util/money.ts';
import { localTime } from './local-time.ts';
import { downSpanText, lowPointText, triggerText } from './text.ts';

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
/** In the message's zone, with the zone shown (a bare epoch read "1,795,603,415,000"). */
export const time = (ms: unknown, timeZone: string) => localTime(ms, timeZone) ?? '—';

export type Facts = (key: string) => unknown;
const asText = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const numbers = (f: Facts, ...keys: string[]): Record<string, number | null> =>
  Object.fromEntries(keys.map((k) => [k, typeof f(k) === 'number' ? (f(k) as number) : null]));
type RowSpec = readonly [label: string, format: (f: Facts, timeZone: string) => string];
const plain = (label: string, key: string): RowSpec => [label, (f) => show(f(key))];
const ranks = (label: string): RowSpec => [label, (f) => change(rank(f('before')), rank(f('after')))];
const amount = (label: string, key: string): RowSpec => [label, (f) => money(f(key), f('currency'))];
/** `royalties` → royaltiesBefore → royaltiesAfter, in royaltiesCurrency. */
const revised = (label: string, key: string): RowSpec => [
  label,
  (f) => change(money(f(`${key}Before`), f(`${key}Currency`)), money(f(`${key}After`), f(`${key}Currency`))),
];
const starsOf = (rating: unknown): string =>
  typeof rating === 'number' ? `${stars(rating)} (${show(rating)}/5)` : show(rating);

const KEYWORD: RowSpec[] = [
  plain('Keyword', 'keyword'),
  ranks('Rank'),
  plain('Positions lost', 'positionsLost'),
  [
    'Why',
    (f) =>
      triggerText({
        trigger: asText(f('trigger')),
        ...numbers(f, 'positionsLost', 'percentWorse', 'topN'),
      }) ?? '—',
  ],
];
/** A recovered rank's episode: how low it went, from when and for how long (in the message's zone). */
const low: RowSpec = ['Low point', (f) => lowPointText(facts(f)) ?? '—'];
const down = (label: string, startKey: string): RowSpec => [
  label,
  (f, zone) => downSpanText(facts(f), startKey, zone) ?? '—',
];
/** The facts `lowPointText` and `downSpanText` read, from the row's accessor. */
function facts(f: Facts): Record<string, string | number | boolean | null> {
  const out: Record<string, string | number | boolean | null> = {};
  for (const key of ['lowPoint', 'lowPointUnranked', 'downForMs', 'firedAt', 'removedAt']) {
    const v = f(key);
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[key] = v;
  }
  return out;
}
/** Provisional figures in words: "yes" under "Provisional" read like a setting. */
const PROVISIONAL: RowSpec = [
  'Figures',
  (f) => (f('provisional') === true ? 'provisional: may still be revised for 14 days' : 'final'),
];
const BSR: RowSpec[] = [plain('Category', 'category'), ranks('Best-seller rank')];
const REVIEW: RowSpec[] = [
  ['Rating', (f) => starsOf(f('rating'))],
  plain('Platform', 'platform'),
  plain('Reviewer', 'reviewer'),
  plain('Campaign', 'campaignId'),
  ['Published', (f, zone) => time(f('publishedAt'), zone)],
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
  keyword_rank_recovered: [
    plain('Keyword', 'keyword'),
    // "#2 → #3" would read as a fall: a recovery names the rank it is back at and the one before the drop.
    ['Rank', (f) => `${rank(f('after'))} (before the drop: ${rank(f('before'))})`],
    low,
    down('Down', 'firedAt'),
  ],
  bsr_worsened: BSR,
  bsr_recovered: [...BSR, low, down('Down', 'firedAt')],
  bsr_removed: BSR,
  bsr_restored: [...BSR, down('Removed', 'removedAt')],
  review_new: REVIEW,
  review_removed: REVIEW,
  review_restored: [...REVIEW, ['Removed', (f, zone) => time(f('removedAt'), zone)]],
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
    PROVISIONAL,
  ],
  sales_revision: [
    plain('Date', 'date'),
    ['Units', (f) => change(show(f('unitsBefore')), show(f('unitsAfter')))],
    revised('Royalties', 'royalties'),
    revised('Ad spend', 'adSpend'),
    PROVISIONAL,
  ],
  source_health: [
    plain('Target', 'targetId'),
    plain('Failures in a row', 'failures'),
    ['Since', (f, zone) => time(f('since'), zone)],
    plain('Last error', 'lastError'),
  ],
  source_recovered: [
    plain('Target', 'targetId'),
    plain('Failed polls', 'failedPolls'),
    ['Down since', (f, zone) => time(f('since'), zone)],
  ],
};

/** The sample of `test-alert` borrows source_recovered, whose rows it has no facts for. */
export const SAMPLE_ROWS: readonly RowSpec[] = [plain('Channel', 'channel')];

/** A pause of the whole workspace (`subject.scope`) has no target or streak to show. */
const WORKSPACE_PAUSE_ROWS: readonly RowSpec[] = [
  plain('Paused because', 'pauseReason'),
  ['Since', (f, zone) => time(f('since'), zone)],
  ['Paused until', (f, zone) => time(f('pausedUntil'), zone)],
];

export function rowsOf(alert: { kind: AlertKind; subject: { scope?: string } }): readonly RowSpec[] {
  if (alert.subject.scope === 'workspace' && alert.kind === 'source_health') return WORKSPACE_PAUSE_ROWS;
  if (alert.subject.scope === 'workspace' && alert.kind === 'source_recovered')
    return WORKSPACE_PAUSE_ROWS.slice(0, 2);
  return KIND_ROWS[alert.kind];
}
