/**
 * The series source of a keywords target: every hour since the last judged one, read from
 * `/v1/rankings` and judged in order by the same keyword rules a snapshot goes through, so a drop
 * between two polls (a cadence stretched to 6 h, an outage, a 429 pause) is still seen, named by its
 * hour, and a drop that persists is not alerted again. Each hour is judged at its own time (rules
 * read `nowMs`), so a re-judged hour (retry, replica) gives the same fingerprints.
 */
import type { AnalyticsClient, Marketplace, RankingSeries } from '../api/index.ts';
import { collectAll } from '../api/index.ts';
import type { Alert } from '../model/alert.ts';
import type { KeywordsObservation, Observation } from '../model/observation.ts';
import type { RuleConfig } from '../rules/config.ts';
import { evaluate, type RuleContext, type RuleState } from '../rules/engine.ts';
import { inStoredOrder } from '../rules/keyword-order.ts';
import { HOUR_MS } from '../util/time-units.ts';
import { type FetchContext, PartialListError } from './fetch.ts';
import { TOP_N_DISCOVERY_MS } from './keyword-source.ts';
import { readRankingSeries } from './rankings-read.ts';
import type { WatchTarget } from './targets.ts';

/**
 * How far back a catch-up reads: the longest range the API accepts (93 days, as for /v1/sales).
 * Hours before it are counted as unreadable and named in the alerts.
 */
export const SERIES_WINDOW_MS = 93 * 24 * HOUR_MS;
/** Keywords per request: repeated `keyword=` filters keep the URL far under a server's 16 KiB limit. */
const KEYWORDS_PER_REQUEST = 100;
const SERIES_PER_PAGE = 100;
const MAX_PAGES = 250;

export interface SeriesFetchResult {
  /** The last judged hour (or the stored observation when no new hour settled). */
  observation: Observation;
  /** Hours to judge in order, oldest first. */
  hours: KeywordsObservation[];
  unreadableHours: number;
  requests: number;
  apiEmpty: boolean;
}

type KeywordsTarget = Extract<WatchTarget, { kind: 'keywords' }>;

export async function fetchKeywordSeries(
  client: AnalyticsClient,
  target: KeywordsTarget,
  stored: Observation | undefined,
  ctx: FetchContext,
): Promise<SeriesFetchResult> {
  const prev = stored?.kind === 'keywords' ? stored : undefined;
  const nowHour = Math.floor(ctx.nowMs / HOUR_MS) * HOUR_MS;
  let requests = 0;
  const { keywords, discoveryRequests } = await trackedKeywords(client, target, prev, ctx);
  requests += discoveryRequests;
  // After a gap: from the hour after the last judged one, never from now; a first poll takes one hour.
  const wantedFrom = prev === undefined ? nowHour : prev.observedAt + HOUR_MS;
  const fromMs = Math.max(wantedFrom, nowHour - SERIES_WINDOW_MS);
  const items: RankingSeries[] = [];
  if (fromMs <= nowHour) {
    for (let i = 0; i < keywords.length; i += KEYWORDS_PER_REQUEST) {
      const pages = client.getRankings(
        {
          asin: [target.asin],
          keyword: keywords.slice(i, i + KEYWORDS_PER_REQUEST),
          marketplace: target.marketplace as Marketplace,
          from: new Date(fromMs).toISOString(),
          to: new Date(nowHour).toISOString(),
          limit: SERIES_PER_PAGE,
        },
        { signal: ctx.signal },
      );
      const result = await collectAll(pages, { maxPages: MAX_PAGES });
      requests += result.requests;
      if (result.truncated) throw new PartialListError(`rankings longer than ${MAX_PAGES} pages`);
      items.push(...result.items);
    }
  }
  const reading = readRankingSeries(items, {
    asin: target.asin,
    marketplace: target.marketplace,
    keywords,
    fromMs,
    nowMs: ctx.nowMs,
  });
  const last = reading.hours[reading.hours.length - 1];
  return {
    observation: last ?? prev ?? emptyObservation(target, ctx.nowMs),
    hours: reading.hours,
    unreadableHours: reading.unreadableHours + (fromMs - wantedFrom) / HOUR_MS,
    requests,
    apiEmpty: reading.empty && keywords.length > 0 && fromMs <= nowHour,
  };
}

function emptyObservation(target: KeywordsTarget, nowMs: number): KeywordsObservation {
  // Dated the hour before this one, so the next poll reads from this hour on.
  const observedAt = Math.floor(nowMs / HOUR_MS) * HOUR_MS - HOUR_MS;
  return { kind: 'keywords', observedAt, asin: target.asin, marketplace: target.marketplace, ranks: [] };
}

/**
 * A list is tracked as given. A `{top: N}` selection is re-read from `/v1/books/{asin}/keywords`
 * once a day (and on a first poll); in between it is the keyword list last judged.
 */
async function trackedKeywords(
  client: AnalyticsClient,
  target: KeywordsTarget,
  prev: KeywordsObservation | undefined,
  ctx: FetchContext,
): Promise<{ keywords: string[]; discoveryRequests: number }> {
  if ('list' in target.keywords) return { keywords: target.keywords.list, discoveryRequests: 0 };
  const day = (ms: number) => Math.floor(ms / TOP_N_DISCOVERY_MS);
  if (prev !== undefined && prev.ranks.length > 0 && day(prev.observedAt) === day(ctx.nowMs)) {
    return { keywords: prev.ranks.map((r) => r.keyword), discoveryRequests: 0 };
  }
  const { data, meta } = await client.getBookKeywords(target.asin, {
    marketplace: target.marketplace as Marketplace,
    signal: ctx.signal,
  });
  const keywords = [...new Set(data.data.slice(0, target.keywords.top).map((k) => k.keyword))];
  return { keywords, discoveryRequests: meta.attempts };
}

/**
 * Judges the hours in order, each against the state the hour before left. Alerts name their hour;
 * when the first hours of a gap could not be read, every alert of the poll says how many.
 */
export function judgeHours(
  ctx: RuleContext,
  rules: readonly RuleConfig[],
  before: { observation: Observation; state: RuleState | undefined } | undefined,
  fetched: SeriesFetchResult,
): { alerts: Alert[]; observation: Observation; state: RuleState | undefined } {
  let observation = before?.observation;
  let state = before?.state;
  const alerts: Alert[] = [];
  for (const hour of fetched.hours) {
    const next = inStoredOrder(observation, hour);
    const evaluation = evaluate({ ...ctx, nowMs: hour.observedAt }, rules, observation, next, state);
    for (const alert of evaluation.alerts)
      alerts.push(namedHour(alert, hour.observedAt, fetched.unreadableHours));
    observation = next;
    state = evaluation.state;
  }
  return { alerts, observation: observation ?? fetched.observation, state };
}

function namedHour(alert: Alert, hourMs: number, unreadableHours: number): Alert {
  const hour = new Date(hourMs).toISOString();
  const gap = unreadableHours > 0 ? `; the ${unreadableHours} hours before could not be read` : '';
  // Only keyword rules judge rankings, and keyword facts carry the hour (KeywordRankFacts): the
  // spread of a union of facts is not followed by TypeScript.
  return {
    ...alert,
    title: `${alert.title} at ${hour.slice(0, 10)} ${hour.slice(11, 16)} UTC${gap}`,
    facts: { ...alert.facts, hour, unreadableHours },
  } as Alert;
}
