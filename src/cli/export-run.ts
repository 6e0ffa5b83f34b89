import { createWriteStream } from 'node:fs';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Runtime } from '../app/runtime.ts';
import { type ShelfwatchConfig, workspaceOf } from '../config/schema.ts';
import {
  EXPORT_FORMATS,
  EXPORT_TABLES,
  type ExportFormat,
  type ExportTable,
  encodeExport,
  exportNotice,
  exportRows,
  keptMsOf,
} from '../history/export.ts';
import type { HistoryBook } from '../history/store.ts';
import { silentLogger } from '../ops/logger.ts';
import { DAY_MS } from '../util/time-units.ts';
import { usageError } from './errors.ts';
import { type CliIo, outputStream } from './io.ts';
import { loadConfigOrThrow } from './load-config.ts';
import { connectRuntime } from './run.ts';
import { VERSION } from './version.ts';

export interface ExportFlags {
  workspace?: string;
  book?: string;
  from?: string;
  to?: string;
  format: string;
  out?: string;
  config?: string;
}

/** `YYYY-MM-DD` (a UTC day: `--to` takes the whole day) or an ISO time. */
export function parseDay(flag: string, text: string, endOfDay: boolean): number {
  const day = /^\d{4}-\d{2}-\d{2}$/.test(text);
  const ms = Date.parse(day ? `${text}T00:00:00Z` : text);
  if (Number.isNaN(ms)) throw usageError(`${flag}: expected a date like 2026-01-31, got "${text}"`);
  return day && endOfDay ? ms + DAY_MS - 1 : ms;
}

function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw usageError(`${flag}: expected one of ${allowed.join(', ')}, got "${value}"`);
}

/** The books of the chosen workspaces, each marketplace its own book; `--book` narrows them. */
export function booksOf(
  config: ShelfwatchConfig,
  workspaces: readonly string[],
  book?: string,
): HistoryBook[] {
  const [asin, marketplace] = book === undefined ? [] : book.split('/');
  const books = workspaces.flatMap((id) =>
    workspaceOf(config, id).books.flatMap((b) =>
      b.marketplaces.map((m) => ({ workspace: id, asin: b.asin, marketplace: m as string })),
    ),
  );
  if (asin === undefined) return books;
  const chosen = books.filter(
    (b) => b.asin === asin && (marketplace === undefined || b.marketplace === marketplace),
  );
  if (chosen.length === 0) throw usageError(`--book: no book ${book} in ${workspaces.join(', ')}`);
  return chosen;
}

export async function runExport(tableText: string, flags: ExportFlags, io: CliIo): Promise<void> {
  const table: ExportTable = oneOf('table', tableText, EXPORT_TABLES);
  const format: ExportFormat = oneOf('--format', flags.format, EXPORT_FORMATS);
  const config = loadConfigOrThrow(io, flags.config);
  const workspaces =
    flags.workspace === undefined
      ? config.workspaces.map((w) => w.id)
      : [workspaceOf(config, flags.workspace).id];
  const books = booksOf(config, workspaces, flags.book);
  const runtime = new Runtime({ config, logger: silentLogger(), version: VERSION, notifiers: new Map() });
  const history = runtime.pollDeps.history;
  if (history === undefined) throw new Error('the runtime has no history store');
  const now = runtime.clock.now();
  const sources = {
    history,
    alertLog: runtime.alertLog,
    alertRetentionMs: config.alertLog.retentionDays * DAY_MS,
  };
  const kept = keptMsOf(table, sources);
  const range = {
    fromMs: flags.from === undefined ? now - kept : parseDay('--from', flags.from, false),
    toMs: flags.to === undefined ? now : parseDay('--to', flags.to, true),
  };
  if (range.fromMs > range.toMs) throw usageError('--from: expected a day before --to');
  const notice = exportNotice(table, sources, range, now);
  if (notice !== undefined) io.stderr.write(`shelfwatch export: ${notice}\n`);
  await connectRuntime(runtime);
  try {
    const [asin, marketplace] = flags.book?.split('/') ?? [];
    const book =
      asin === undefined ? {} : { book: { asin, ...(marketplace === undefined ? {} : { marketplace }) } };
    const rows = exportRows({ table, books, workspaces, range, ...book }, sources);
    const out =
      flags.out === undefined ? outputStream(io.stdout) : createWriteStream(resolve(io.cwd, flags.out));
    await pipeline(Readable.from(encodeExport(format, table, rows, notice)), out, {
      end: flags.out !== undefined,
    });
  } finally {
    await runtime.close();
  }
}
