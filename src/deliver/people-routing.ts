import { SEVERITY_RANK } from '../config/people.ts';
import type { ShelfwatchConfig } from '../config/schema.ts';
import type { Alert } from '../model/alert.ts';
import type { RouteTarget } from './enqueue.ts';

/**
 * The channels of the people an alert reaches: each subscription that matches it (workspace,
 * books by ASIN or author or all, kinds, least severity) sends it to the person's own channel or
 * email; a critical alert (a refused key's source health) reaches every admin whatever they
 * subscribed to. A person matched twice gets it once.
 */
export function createPeopleRouter(
  config: Pick<ShelfwatchConfig, 'people' | 'workspaces'>,
): (alert: Alert) => RouteTarget[] {
  const authorOf = new Map<string, string>();
  for (const ws of config.workspaces)
    for (const book of ws.books)
      if (book.author !== undefined) authorOf.set(`${ws.id}/${book.asin}`, book.author.trim());
  const people = new Map(config.people.accounts.map((person) => [person.id, person]));
  const admins = config.people.accounts.filter((person) => person.role === 'admin');
  return (alert) => {
    const channels = new Set<string>();
    const asin = alert.subject.asin;
    for (const sub of config.people.subscriptions) {
      const person = people.get(sub.person);
      if (person === undefined || !sub.alerts) continue;
      if (sub.workspace !== undefined && sub.workspace !== alert.workspace) continue;
      if (sub.kinds !== undefined && !sub.kinds.includes(alert.kind)) continue;
      if (SEVERITY_RANK[alert.severity] < SEVERITY_RANK[sub.minSeverity]) continue;
      if (sub.asin !== undefined && (asin === undefined || !sub.asin.includes(asin))) continue;
      if (sub.author !== undefined) {
        const author = asin === undefined ? undefined : authorOf.get(`${alert.workspace}/${asin}`);
        if (author !== sub.author.trim()) continue;
      }
      const own = sub.via === 'email' ? undefined : person.channelId;
      const target = own ?? person.mailChannelId;
      if (target !== undefined) channels.add(target);
    }
    if (alert.severity === 'critical') {
      for (const admin of admins) {
        const target = admin.channelId ?? admin.mailChannelId;
        if (target !== undefined) channels.add(target);
      }
    }
    return [...channels].map((channelId) => ({ channelId, hideLowStarText: false }));
  };
}
