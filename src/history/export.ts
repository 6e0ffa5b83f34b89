/**
 * Exports of what history keeps — rank series (hourly, then daily), sales days and the alert log —
 * as rows streamed a book and a month at a time, so a year of a large workspace never sits in
 * memory whole; `encodeExport` turns the rows into CSV (spreadsheet-safe, `util/csv.ts`) or JSON.
 */
import { stripBidi } from '../util/bidi.ts';
import { type Cell, csvLine } from '../util/csv.ts';
import { formatMinor } from '../util/money.ts';
import { DAY_MS } from '../util/time-units.ts';
import { type AlertLog, alertLogEntries } from './alert-log.ts';
import { BSR_SERIES, compOfSeries, type HistoryBook, type RedisHistoryStore } from './store.ts';

export const EXPORT_TABLES = ['ranks', 'sales', 'alerts'] as const;
export type ExportTable = (typeof EXPORT_TABLES)[number];
export const EXPORT_FORMATS = ['csv', 'json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const EXPORT_COLUMNS: Record<ExportTable, readonly string[]> = {
  ranks: [
    'workspace',
    'asin',
    'marketplace',
    'series',
    'name',
    'at',
    'resolution',
    'rank',
    'day_best',
    'day_worst',
  ],
  sales: [
    'workspace',
    'asin',
    'marketplace',
    'date',
    'units',
    'royalties',
    'royalties_currency',
    'ad_spend',
    'ad_spend_currency',
  ],
  alerts: [
    'observed_at',
    'workspace',
    'asin',
    'marketplace',
    'keyword',
    'kind',
    'severity',
    'status',
    'title',
    'deliveries',
  ],
};

export interface ExportRange {
  fromMs: number;
  toMs: number;
}

export interface ExportSources {
  history: RedisHistoryStore;
  alertLog: AlertLog;
  /** How long the alert log keeps an entry. */
  alertRetentionMs: number;
}

/** Days of one book read at once. */
const CHUNK_DAYS = 31;
const iso = (ms: number) => new Date(ms).toISOString();
const isoDate = (ms: number) => iso(ms).slice(0, 10);
/** Untrusted text (titles, keywords) leaves without bidi controls that could disguise a cell. */
const text = (value: string | undefined) => (value === undefined ? null : stripBidi(value));

function seriesKind(name: string): [string, string] {
  if (name === BSR_SERIES) return ['bsr', ''];
  const comp = compOfSeries(name);
  return comp === undefined ? ['keyword', name] : ['comp', comp];
}

async function* rankRows(
  store: RedisHistoryStore,
  books: Iterable<HistoryBook>,
  range: ExportRange,
): AsyncGenerator<Cell[]> {
  for (const book of books) {
    const first = Math.floor(range.fromMs / DAY_MS) * DAY_MS;
    for (let start = first; start <= range.toMs; start += CHUNK_DAYS * DAY_MS) {
      const from = Math.max(range.fromMs, start);
      const to = Math.min(range.toMs, start + CHUNK_DAYS * DAY_MS - 1);
      const head = [book.workspace, book.asin, book.marketplace];
      for (const [name, series] of await store.readTiered(book, from, to)) {
        const [kind, label] = seriesKind(name);
        const summarised = new Set(series.days.map((d) => d.day));
        for (const d of series.days)
          yield [...head, kind, text(label), isoDate(d.day), 'day', d.median, d.min, d.max];
        for (const p of series.points)
          if (!summarised.has(Math.floor(p.at / DAY_MS) * DAY_MS))
            yield [...head, kind, text(label), iso(p.at), 'hour', p.rank, null, null];
      }
    }
  }
}

async function* salesRows(
  store: RedisHistoryStore,
  books: Iterable<HistoryBook>,
  range: ExportRange,
): AsyncGenerator<Cell[]> {
  for (const book of books) {
    for (const day of await store.readSales(book, isoDate(range.fromMs), isoDate(range.toMs))) {
      yield [
        book.workspace,
        day.asin,
        day.marketplace,
        day.date,
        day.units,
        Number(formatMinor(day.royalties.minor, day.royalties.currency)),
        day.royalties.currency,
        Number(formatMinor(day.adSpend.minor, day.adSpend.currency)),
        day.adSpend.currency,
      ];
    }
  }
}

async function* alertRows(
  log: AlertLog,
  scope: { workspaces: ReadonlySet<string>; book?: ExportBookFilter },
  range: ExportRange,
): AsyncGenerator<Cell[]> {
  const { book } = scope;
  const entries = alertLogEntries(log, { ...range, ...(book === undefined ? {} : { asin: book.asin }) });
  for await (const entry of entries) {
    if (!scope.workspaces.has(entry.workspace)) continue;
    if (book?.marketplace !== undefined && entry.marketplace !== book.marketplace) continue;
    yield [
      iso(entry.observedAt),
      entry.workspace,
      entry.asin ?? null,
      entry.marketplace ?? null,
      text(entry.keyword),
      entry.kind,
      entry.severity,
      entry.status,
      text(entry.title),
      Object.entries(entry.deliveries)
        .map(([channel, outcome]) => `${channel}:${outcome}`)
        .join(' '),
    ];
  }
}

/** One book's alerts: its ASIN, in one marketplace or all. */
export interface ExportBookFilter {
  asin: string;
  marketplace?: string;
}

export interface ExportRequest {
  table: ExportTable;
  /** The books exported (a workspace's, or one); alerts of these workspaces, or of the one book. */
  books: readonly HistoryBook[];
  workspaces: readonly string[];
  /** Set when one book is exported: its alerts only. */
  book?: ExportBookFilter;
  range: ExportRange;
}

/** How far back a table's source keeps what it exports: the alert log's retention or the history's. */
export function keptMsOf(table: ExportTable, sources: ExportSources): number {
  return table === 'alerts' ? sources.alertRetentionMs : sources.history.retentionMs;
}

/** What the range asks for beyond what is kept, said in a sentence; undefined when it is all kept. */
export function exportNotice(table: ExportTable, sources: ExportSources, range: ExportRange, nowMs: number) {
  const kept = keptMsOf(table, sources);
  const keptFrom = nowMs - kept;
  if (range.fromMs >= keptFrom) return undefined;
  const what = table === 'alerts' ? 'the alert log keeps' : 'history is kept for';
  return `${what} ${Math.round(kept / DAY_MS)} days: nothing before ${isoDate(keptFrom)} exists; exported what exists from then on`;
}

export function exportRows(request: ExportRequest, sources: ExportSources): AsyncGenerator<Cell[]> {
  if (request.table === 'ranks') return rankRows(sources.history, request.books, request.range);
  if (request.table === 'sales') return salesRows(sources.history, request.books, request.range);
  return alertRows(
    sources.alertLog,
    {
      workspaces: new Set(request.workspaces),
      ...(request.book === undefined ? {} : { book: request.book }),
    },
    request.range,
  );
}

/** Lines are handed on in chunks of about this many characters (one write per chunk, not per row). */
const CHUNK_CHARS = 64 * 1024;

/** The rows as CSV (a header line, then a line a row) or JSON (`{table, notice, rows: [{column: value}]}`). */
export async function* encodeExport(
  format: ExportFormat,
  table: ExportTable,
  rows: AsyncIterable<Cell[]>,
  notice?: string,
): AsyncGenerator<string> {
  const columns = EXPORT_COLUMNS[table];
  let chunk =
    format === 'csv'
      ? csvLine(columns)
      : `{"table":${JSON.stringify(table)},"notice":${JSON.stringify(notice ?? null)},"rows":[`;
  let first = true;
  for await (const row of rows) {
    if (format === 'csv') chunk += csvLine(row);
    else {
      chunk += `${first ? '\n' : ',\n'}${JSON.stringify(Object.fromEntries(columns.map((c, i) => [c, row[i] ?? null])))}`;
      first = false;
    }
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  yield format === 'csv' ? chunk : `${chunk}\n]}\n`;
}
