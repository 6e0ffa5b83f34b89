import type { RouteConfig, ShelfwatchConfig } from '../config/schema.ts';
import type { Alert } from '../model/alert.ts';
import type { RouteTarget } from './enqueue.ts';
import { createPeopleRouter } from './people-routing.ts';

/**
 * Picks the channels an alert is pushed to: the union of every matching route's channels. Routes
 * marked `digestOnly` push nothing (their alerts wait for the digest). A route matches when every
 * condition it names holds; one with no conditions matches all. People's subscriptions add their
 * own channels (people-routing.ts).
 */
export function createRouter(config: ShelfwatchConfig): (alert: Alert) => RouteTarget[] {
  const authorOf = new Map<string, string>();
  for (const ws of config.workspaces) {
    for (const book of ws.books)
      if (book.author !== undefined) authorOf.set(`${ws.id}/${book.asin}`, book.author);
  }
  const matches = (route: RouteConfig, alert: Alert): boolean => {
    const { match } = route;
    if (match.workspace !== undefined && match.workspace !== alert.workspace) return false;
    if (match.kind !== undefined && !match.kind.includes(alert.kind)) return false;
    if (match.severity !== undefined && !match.severity.includes(alert.severity)) return false;
    const asin = alert.subject.asin;
    if (match.asin !== undefined && (asin === undefined || !match.asin.includes(asin))) return false;
    if (match.author !== undefined) {
      const author = asin === undefined ? undefined : authorOf.get(`${alert.workspace}/${asin}`);
      if (author !== match.author) return false;
    }
    return true;
  };
  const toPeople = createPeopleRouter(config);
  return (alert) => {
    // A channel reached by several routes hides low-star text if any of them asks to.
    const hideByChannel = new Map<string, boolean>();
    for (const route of config.routes) {
      if (route.digestOnly || !matches(route, alert)) continue;
      for (const channel of route.channels) {
        hideByChannel.set(channel, (hideByChannel.get(channel) ?? false) || route.hideLowStarText);
      }
    }
    for (const { channelId } of toPeople(alert))
      if (!hideByChannel.has(channelId)) hideByChannel.set(channelId, false);
    return [...hideByChannel].map(([channelId, hideLowStarText]) => ({ channelId, hideLowStarText }));
  };
}
