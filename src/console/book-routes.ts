/** The book page (ranges, charts, figures) and the export downloads of a book and of a workspace. */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Runtime } from '../app/runtime.ts';
import { createRouter } from '../deliver/routing.ts';
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
import { compMarginOf } from '../rules/comps.ts';
import { DAY_MS } from '../util/time-units.ts';
import {
  bookReviews,
  bookSnapshot,
  keywordsSnapshot,
  SnapshotBookHistory,
  StoredBookHistory,
} from './book-history.ts';
import { notFound, type PageContext } from './layout.ts';
import { perConfig } from './live.ts';
import { bookPage } from './pages/book.ts';
import { rangeOf } from './pages/book-ranges.ts';
import { reviewTextHider } from './review-text.ts';

/** The first language of Accept-Language that Intl knows; en-US otherwise. */
export function viewerLocale(header: unknown): string {
  const first = typeof header === 'string' ? header.split(',')[0]?.split(';')[0]?.trim() : undefined;
  if (first === undefined || first === '' || first === '*') return 'en-US';
  try {
    return Intl.NumberFormat.supportedLocalesOf([first])[0] ?? 'en-US';
  } catch {
    return 'en-US';
  }
}

export function registerBookRoutes(
  app: FastifyInstance,
  runtime: Runtime,
  context: (request: FastifyRequest) => PageContext,
): void {
  const now = () => runtime.clock.now();
  // Everything below is read per request from the config in force: a revision applied since the
  // console started changes books, routes and retention. Built again only when the config changed.
  const live = perConfig(runtime, (config) => {
    const kept = runtime.pollDeps.history;
    return {
      history:
        kept === undefined
          ? new SnapshotBookHistory(runtime.store)
          : new StoredBookHistory(kept, runtime.store),
      historyRetentionMs: kept?.retentionMs ?? config.history.retention,
      // The same routing delivery uses, so the page hides review text exactly where alerts do.
      router: createRouter(config),
      sources:
        kept === undefined
          ? undefined
          : {
              history: kept,
              alertLog: runtime.alertLog,
              alertRetentionMs: config.alertLog.retentionDays * DAY_MS,
            },
    };
  });
  const configuredBook = (ws: string, asin: string, mp: string) => {
    // The config in force now: a revision applied since the console started adds or removes books.
    const workspace = runtime.config.workspaces.find((w) => w.id === ws);
    const book = workspace?.books.find((b) => b.asin === asin && b.marketplaces.includes(mp as never));
    return workspace === undefined || book === undefined ? undefined : { workspace, book };
  };

  app.get<{ Params: { ws: string; asin: string; mp: string }; Querystring: Record<string, unknown> }>(
    '/books/:ws/:asin/:mp',
    async (request, reply) => {
      const { ws, asin, mp } = request.params;
      const found = configuredBook(ws, asin, mp);
      if (found === undefined) return notFound(reply, context(request), 'No such book in the config.');
      const book = { workspace: ws, asin, marketplace: mp };
      const { history, historyRetentionMs, router } = live();
      const toMs = now();
      const range = rangeOf(request.query.range, toMs, historyRetentionMs);
      const [snapshot, keywords, ranks, logged, reviews] = await Promise.all([
        bookSnapshot(runtime.store, book),
        keywordsSnapshot(runtime.store, book),
        history.ranks(book, range.fromMs, toMs),
        runtime.alertLog.query({
          keep: (e) => e.workspace === ws && e.marketplace === mp,
          asin,
          limit: 500,
          fromMs: range.fromMs,
        }),
        bookReviews(
          runtime.store,
          ws,
          found.workspace.campaigns.map((c) => c.id),
          asin,
        ),
      ]);
      const rules = runtime.registry.rules(ws);
      return reply.type('text/html; charset=utf-8').send(
        bookPage(context(request), {
          book,
          ...(found.book.author === undefined ? {} : { author: found.book.author }),
          ...(snapshot === undefined ? {} : { snapshot }),
          ...(keywords === undefined ? {} : { keywords }),
          ranks,
          alerts: logged.entries,
          reviews,
          reviewTextHidden: reviewTextHider(ws, rules, router),
          compMargin: compMarginOf(rules, asin, mp),
          fromMs: range.fromMs,
          toMs,
          range: range.id,
          locale: viewerLocale(request.headers['accept-language']),
        }),
      );
    },
  );

  const send = (
    request: FastifyRequest<{ Querystring: Record<string, unknown> }>,
    reply: FastifyReply,
    file: { table: string; format: string; name: string },
    scope: {
      books: { workspace: string; asin: string; marketplace: string }[];
      workspace: string;
      asin?: string;
      marketplace?: string;
    },
  ) => {
    const table = EXPORT_TABLES.find((t) => t === file.table) as ExportTable | undefined;
    const format = EXPORT_FORMATS.find((f) => f === file.format) as ExportFormat | undefined;
    const { sources } = live();
    if (table === undefined || format === undefined || sources === undefined)
      return notFound(reply, context(request), 'No such export.');
    const toMs = now();
    const { fromMs } = rangeOf(request.query.range, toMs, keptMsOf(table, sources));
    const range = { fromMs, toMs };
    const notice = exportNotice(table, sources, range, toMs);
    const book =
      scope.asin === undefined
        ? {}
        : {
            book: {
              asin: scope.asin,
              ...(scope.marketplace === undefined ? {} : { marketplace: scope.marketplace }),
            },
          };
    const rows = exportRows(
      { table, books: scope.books, workspaces: [scope.workspace], range, ...book },
      sources,
    );
    const safeName = file.name.replace(/[^A-Za-z0-9._-]/g, '_');
    if (notice !== undefined) reply.header('x-shelfwatch-notice', notice);
    return reply
      .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8')
      .header('content-disposition', `attachment; filename="${safeName}-${table}.${format}"`)
      .send(Readable.from(encodeExport(format, table, rows, notice)));
  };

  app.get<{
    Params: { ws: string; asin: string; mp: string; file: string };
    Querystring: Record<string, unknown>;
  }>('/books/:ws/:asin/:mp/export/:file', async (request, reply) => {
    const { ws, asin, mp, file } = request.params;
    if (configuredBook(ws, asin, mp) === undefined)
      return notFound(reply, context(request), 'No such book in the config.');
    const [table = '', format = ''] = file.split('.');
    return send(
      request,
      reply,
      { table, format, name: `${ws}-${asin}-${mp}` },
      {
        books: [{ workspace: ws, asin, marketplace: mp }],
        workspace: ws,
        asin,
        marketplace: mp,
      },
    );
  });

  app.get<{ Params: { ws: string; file: string }; Querystring: Record<string, unknown> }>(
    '/export/:ws/:file',
    async (request, reply) => {
      const { ws, file } = request.params;
      const workspace = runtime.config.workspaces.find((w) => w.id === ws);
      if (workspace === undefined)
        return notFound(reply, context(request), 'No such workspace in the config.');
      const [table = '', format = ''] = file.split('.');
      const books = workspace.books.flatMap((b) =>
        b.marketplaces.map((m) => ({ workspace: ws, asin: b.asin, marketplace: m as string })),
      );
      return send(request, reply, { table, format, name: ws }, { books, workspace: ws });
    },
  );
}
