/**
 * "My books" (`/me`): a signed-in person's own books — those their subscriptions name (by ASIN,
 * by author, or every book of a workspace) — with the title, the best-seller rank now and its
 * last change, and what is firing now for each: the conditions whose latest alert in the log is
 * still firing (a drop not yet recovered), since when. Read per request from the config in force.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Runtime } from '../app/runtime.ts';
import { sparkline } from '../channels/render/sparkline.ts';
import type { Person, ShelfwatchConfig } from '../config/schema.ts';
import type { AlertLogEntry } from '../history/alert-log.ts';
import type { AlertKind } from '../model/alert.ts';
import type { BookObservation } from '../model/observation.ts';
import { DAY_MS } from '../util/time-units.ts';
import { bookSnapshot } from './book-history.ts';
import type { PageContext } from './layout.ts';
import { type FiringNow, type MyBook, myBooksPage } from './pages/my-books.ts';
import { personOf } from './viewer-zone.ts';

/**
 * Kinds that name a condition which later resolves (a `resolved` alert ends it): their latest
 * firing alert means "bad now". Reviews, sales and revisions are events: they never fire "now".
 */
const CONDITION_KINDS: ReadonlySet<AlertKind> = new Set([
  'keyword_rank_drop',
  'bsr_worsened',
  'bsr_removed',
  'comp_overtook',
  'sentiment_shift',
]);
/** Points of the 7-day sparkline (one per six hours). */
const TREND_POINTS = 28;
/** The newest alerts of a book shown under it. */
const LATEST_ALERTS = 3;
/** How far back the log is read for conditions still firing. */
const FIRING_LOOKBACK_MS = 30 * DAY_MS;

/** The books a person's subscriptions cover, each with its marketplaces. */
export function booksOf(
  config: Pick<ShelfwatchConfig, 'workspaces' | 'people'>,
  person: Person,
): { workspace: string; asin: string; marketplace: string; author?: string }[] {
  const subs = config.people.subscriptions.filter((sub) => sub.person === person.id);
  const out: { workspace: string; asin: string; marketplace: string; author?: string }[] = [];
  for (const ws of config.workspaces)
    for (const book of ws.books) {
      const covered = subs.some(
        (sub) =>
          (sub.workspace === undefined || sub.workspace === ws.id) &&
          (sub.asin === undefined || sub.asin.includes(book.asin)) &&
          (sub.author === undefined || sub.author.trim() === book.author?.trim()),
      );
      if (!covered) continue;
      for (const marketplace of book.marketplaces)
        out.push({
          workspace: ws.id,
          asin: book.asin,
          marketplace,
          ...(book.author === undefined ? {} : { author: book.author }),
        });
    }
  return out;
}

/** The last time the rank moved: the newest point whose rank differs from the one after it. */
export function lastChange(snapshot: BookObservation): MyBook['change'] {
  const points = snapshot.bsrHistory;
  for (let i = points.length - 1; i > 0; i--) {
    const [before, after] = [points[i - 1], points[i]];
    if (before !== undefined && after !== undefined && before.rank !== after.rank)
      return { from: before.rank, to: after.rank, atMs: after.at };
  }
  return undefined;
}

/** Six-hourly points of the 7 days before `endMs`, for the sparkline: the last rank of each six hours. */
export function weekTrend(snapshot: BookObservation, endMs: number): (number | null)[] {
  const buckets: (number | null | undefined)[] = Array.from({ length: TREND_POINTS }, () => undefined);
  const spanMs = 7 * DAY_MS;
  for (const point of snapshot.bsrHistory) {
    const age = endMs - point.at;
    if (age < 0 || age >= spanMs) continue;
    buckets[TREND_POINTS - 1 - Math.floor((age / spanMs) * TREND_POINTS)] = point.rank;
  }
  return buckets.map((rank) => rank ?? null);
}

/** Newest first: the first entry of a condition decides whether it is firing now. */
export function firingNow(entries: readonly AlertLogEntry[]): FiringNow[] {
  const seen = new Set<string>();
  const out: FiringNow[] = [];
  for (const entry of [...entries].sort((a, b) => b.observedAt - a.observedAt)) {
    const condition = `${entry.ruleId}|${entry.marketplace ?? ''}|${entry.keyword ?? ''}`;
    if (seen.has(condition)) continue;
    if (entry.status === 'resolved') seen.add(condition);
    else if (CONDITION_KINDS.has(entry.kind)) {
      seen.add(condition);
      out.push({
        id: entry.fingerprint,
        title: entry.title,
        kind: entry.kind,
        severity: entry.severity,
        sinceMs: entry.observedAt,
      });
    }
  }
  return out;
}

export function registerMyBooks(
  app: FastifyInstance,
  runtime: Runtime,
  context: (request: FastifyRequest) => PageContext,
): void {
  app.get('/me', async (request, reply) => {
    const { config } = runtime;
    const person = personOf(request.session, config.people.accounts);
    const type = 'text/html; charset=utf-8';
    if (person === undefined) return reply.type(type).send(myBooksPage(context(request), { books: [] }));
    const fromMs = runtime.clock.now() - FIRING_LOOKBACK_MS;
    const books = await Promise.all(
      booksOf(config, person).map(async (book): Promise<MyBook> => {
        const [snapshot, logged] = await Promise.all([
          bookSnapshot(runtime.store, book),
          runtime.alertLog.query({
            keep: (e) => e.workspace === book.workspace && e.marketplace === book.marketplace,
            asin: book.asin,
            limit: 200,
            fromMs,
          }),
        ]);
        const change = snapshot === undefined ? undefined : lastChange(snapshot);
        // The week up to the last poll: a book not polled for days still shows its last week.
        const trend = snapshot === undefined ? [] : weekTrend(snapshot, snapshot.observedAt + 1);
        return {
          ...book,
          ...(snapshot === undefined ? {} : { title: snapshot.title }),
          bsr: snapshot?.bsr,
          ...(change === undefined ? {} : { change }),
          ...(trend.some((rank) => rank !== null)
            ? { trend: sparkline(trend, { invert: true, log: true }) }
            : {}),
          firing: firingNow(logged.entries),
          reviewsThisWeek: logged.entries.filter(
            (e) => e.kind === 'review_new' && e.observedAt >= runtime.clock.now() - 7 * DAY_MS,
          ).length,
          latest: [...logged.entries]
            .sort((a, b) => b.observedAt - a.observedAt)
            .slice(0, LATEST_ALERTS)
            .map((e) => ({ id: e.fingerprint, title: e.title, atMs: e.observedAt })),
        };
      }),
    );
    return reply.type(type).send(myBooksPage(context(request), { person, books }));
  });
}
