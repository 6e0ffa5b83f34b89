/**
 * Everything one digest reads. Sales are fetched fresh (the digest day and the 7 days before,
 * through the workspace's budgeted client, so the digest spends from the same request budget as
 * the polls); books, keywords and reviews come from the poller's snapshots, at no request cost.
 */
import { type AnalyticsClient, collectAll, type Marketplace } from '../api/index.ts';
import { readInvites } from '../arc/invite-counts.ts';
import { judgeApiOutcome } from '../budget/api-outcome-policy.ts';
import type { ReserveWalk } from '../budget/gate.ts';
import { PauseEpisodes } from '../budget/pause-episode.ts';
import type { RedisRequestBudget } from '../budget/request-budget.ts';
import type { WorkspaceConfig } from '../config/schema.ts';
import { DeferredError } from '../model/deferred.ts';
import type {
  BookObservation,
  KeywordsObservation,
  ReviewsObservation,
  SalesDay,
  TargetRef,
} from '../model/observation.ts';
import { salesDaysOf } from '../model/sales-day.ts';
import { targetsOfWorkspace } from '../poll/registry.ts';
import { TitleCache } from '../poll/title-cache.ts';
import { SilenceStore } from '../silence/store.ts';
import { SnapshotDecodeError, type SnapshotStore, type StoredTarget } from '../snapshot/store.ts';
import type { Clock } from '../util/clock.ts';
import { homePrefix, type KeyPrefix } from '../util/redis-keys.ts';
import { addDays, localDayBounds } from './dates.ts';
import type {
  CampaignInput,
  DigestInputs,
  LastDigest,
  PairRef,
  SalesFetch,
  SilencedSummary,
} from './types.ts';

/** Sales fetched per digest: the 7-day week ending on the digest day, plus the day before it. */
export const SALES_FETCH_DAYS = 8;
/** A sales walk longer than this is a protocol fault, not a reason to spend the month's budget. */
const MAX_SALES_PAGES = 50;

export interface GatherDeps {
  client: AnalyticsClient;
  store: SnapshotStore;
  budget: RedisRequestBudget;
  redis: Parameters<typeof readInvites>[0];
  prefix: KeyPrefix;
  clock: Clock;
  /**
   * Runs the sales walk inside a budget reservation, as the poller's walks run (see
   * `walkWithinBudget`): past the reservation it waits for the minute window instead of deferring
   * and fetching page 1 again. Absent, each page takes its own turn at the budget gate.
   */
  reserveWalk?: ReserveWalk;
}

export interface GatherRequest {
  workspace: WorkspaceConfig;
  timeZone: string;
  day: string;
  nowMs: number;
  previous: LastDigest | null;
  signal: AbortSignal;
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`.slice(0, 200);
  return String(error).slice(0, 200);
}

/**
 * One walk per watched marketplace (the API answers one marketplace unless told otherwise).
 * A budget refusal or a 429 defers the whole digest (`api-outcome-policy.ts`); a 401 pauses the
 * workspace as a poll's would; any failure but a deferral makes sales "unavailable (reason)", so
 * the digest never shows zeros for figures it does not have.
 */
export async function fetchDigestSales(
  deps: GatherDeps,
  ws: WorkspaceConfig,
  day: string,
  signal: AbortSignal,
): Promise<SalesFetch> {
  if (ws.sales === false) return { status: 'off' };
  const { marketplaces } = ws.sales;
  const from = addDays(day, -(SALES_FETCH_DAYS - 1));
  const rows: SalesDay[] = [];
  let requests = 0;
  // One walk for every marketplace: at least a page each is reserved up front.
  const walk = async (): Promise<SalesFetch | undefined> => {
    for (const marketplace of marketplaces) {
      const pages = deps.client.listSales(
        { from, to: day, marketplace: marketplace as Marketplace, limit: 100 },
        { signal },
      );
      const result = await collectAll(pages, { maxPages: MAX_SALES_PAGES });
      requests += result.requests;
      if (result.truncated)
        return { status: 'unavailable', reason: `the sales list ran past ${MAX_SALES_PAGES} pages` };
      rows.push(...salesDaysOf(result.items));
    }
    return undefined;
  };
  try {
    const cut =
      deps.reserveWalk === undefined
        ? await walk()
        : await deps.reserveWalk(ws.id, marketplaces.length, signal, walk);
    if (cut !== undefined) return cut;
  } catch (error) {
    if (signal.aborted) throw error;
    // The same budget policy as the poller's: a 401 pauses the workspace (the polls alert it).
    const episodes = new PauseEpisodes(deps.redis, deps.prefix);
    const verdict = await judgeApiOutcome({ budget: deps.budget, episodes }, ws.id, error);
    if (verdict?.kind === 'deferred') {
      throw new DeferredError('digest', verdict.retryAtMs, verdict.reason, { cause: error });
    }
    // A refused key reads as the policy words it, as in the polls' health alerts.
    return {
      status: 'unavailable',
      reason: verdict?.kind === 'unauthorized' ? verdict.reason : describe(error),
    };
  }
  return { status: 'ok', rows, from, to: day, requests };
}

/** A snapshot, or none when there is none or it cannot be read (the poller replaces it). */
async function snapshot(store: SnapshotStore, ref: TargetRef): Promise<StoredTarget | undefined> {
  try {
    return await store.get(ref);
  } catch (error) {
    if (error instanceof SnapshotDecodeError) return undefined;
    throw error;
  }
}

export async function gatherInputs(deps: GatherDeps, req: GatherRequest): Promise<DigestInputs> {
  const ws = req.workspace;
  const sales = await fetchDigestSales(deps, ws, req.day, req.signal);
  const books: BookObservation[] = [];
  const keywords: KeywordsObservation[] = [];
  const campaigns: CampaignInput[] = [];
  for (const target of targetsOfWorkspace(ws)) {
    if (target.kind === 'sales') continue;
    const observation = (await snapshot(deps.store, target.ref))?.observation;
    if (target.kind === 'reviews') {
      const reviews = observation?.kind === 'reviews' ? observation : null;
      campaigns.push({
        campaignId: target.campaignId,
        ...(target.campaignName === undefined ? {} : { campaignName: target.campaignName }),
        bookTitles: await cachedTitles(deps, ws.id, reviews),
        invites: await readInvites(deps.redis, deps.prefix, ws.id, target.campaignId),
        reviews: observation?.kind === 'reviews' ? observation : null,
      });
    } else if (observation?.kind === 'book') books.push(observation);
    else if (observation?.kind === 'keywords') keywords.push(observation);
  }
  const salesMarkets = new Set<string>(ws.sales === false ? [] : ws.sales.marketplaces);
  const expectedPairs: PairRef[] = ws.books.flatMap((book) =>
    book.marketplaces
      .filter((m) => salesMarkets.has(m))
      .map((marketplace) => ({ asin: book.asin, marketplace })),
  );
  return {
    workspace: ws.id,
    timeZone: req.timeZone,
    day: req.day,
    nowMs: req.nowMs,
    sales,
    expectedPairs,
    books,
    keywords,
    campaigns,
    previous: req.previous,
    silenced: await silencedOn(deps, ws.id, req.day, req.timeZone),
  };
}

/** Alerts of the workspace silenced on the local digest day, from the silence store (no API request). */
async function silencedOn(
  deps: GatherDeps,
  workspace: string,
  day: string,
  timeZone: string,
): Promise<SilencedSummary> {
  const { startMs, endMs } = localDayBounds(day, timeZone);
  const records = await new SilenceStore(deps.redis, homePrefix(deps.prefix)).silencedBetween(
    startMs,
    endMs,
    workspace,
  );
  const byReason = new Map<string, number>();
  for (const r of records) byReason.set(r.reason, (byReason.get(r.reason) ?? 0) + 1);
  const reasons = [...byReason].sort((a, b) => b[1] - a[1]).map(([reason]) => reason);
  return { count: records.length, reasons };
}

/** The cached titles of a campaign's books (no API request: the poller looked them up). */
async function cachedTitles(
  deps: GatherDeps,
  workspace: string,
  reviews: ReviewsObservation | null,
): Promise<Map<string, string>> {
  const titles = new Map<string, string>();
  if (reviews === null) return titles;
  const cache = new TitleCache(deps.redis, deps.prefix);
  for (const asin of new Set(reviews.reviews.map((r) => r.asin))) {
    const name = await cache.get(workspace, asin);
    if (name) titles.set(asin, name.title);
  }
  return titles;
}
