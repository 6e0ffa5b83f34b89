/** Cross-references of `people:` against the rest of the config: people's ids, channels and books. */
import type { z } from 'zod';
import { mailChannelOf, personChannelId, personMailChannelId } from './people.ts';
import { checkReference, checkUnique, recordAt, stringsAt } from './references.ts';

/** Books by workspace, for the check of a subscription's ASINs and author (partly valid input). */
function booksOf(workspaces: unknown): Map<string, { asin?: string; author?: string }[]> {
  const out = new Map<string, { asin?: string; author?: string }[]>();
  for (const ws of Array.isArray(workspaces) ? workspaces : []) {
    const { id, books } = recordAt(ws);
    if (typeof id !== 'string') continue;
    out.set(
      id,
      (Array.isArray(books) ? books : []).map((book) => {
        const { asin, author } = recordAt(book);
        return {
          ...(typeof asin === 'string' ? { asin } : {}),
          ...(typeof author === 'string' ? { author: author.trim() } : {}),
        };
      }),
    );
  }
  return out;
}

/** Cross-references of `people:` against the rest of the config (read defensively: it may be invalid). */
export function checkPeople(raw: Record<string, unknown>, ctx: z.RefinementCtx): void {
  const people = recordAt(raw.people);
  const channels = Array.isArray(raw.channels) ? (raw.channels as unknown[]) : [];
  const accounts = Array.isArray(people.accounts) ? (people.accounts as unknown[]) : [];
  const personIds = stringsAt(accounts, 'id');
  checkUnique(personIds, ['people', 'accounts'], 'person', ctx);
  const channelIds = stringsAt(channels, 'id');
  personIds.forEach((id, index) => {
    if (id === undefined) return;
    for (const taken of [personChannelId(id), personMailChannelId(id)]) {
      if (channelIds.includes(taken))
        ctx.addIssue({
          code: 'custom',
          path: ['people', 'accounts', index, 'id'],
          message: `expected a person id whose channel name is free, got "${id}" (channels has "${taken}")`,
          params: { hint: 'rename the channel or the person' },
        });
    }
  });

  const mail = mailChannelOf(people, channels);
  const emailChannels = channelIds.filter(
    (id, index) => id !== undefined && recordAt(channels[index]).type === 'email',
  ) as string[];
  if (typeof people.mailChannel === 'string')
    checkReference(people.mailChannel, emailChannels, ['people', 'mailChannel'], 'email channel', ctx);

  const books = booksOf(raw.workspaces);
  const known = personIds.filter((id) => id !== undefined);
  const subscriptions = Array.isArray(people.subscriptions) ? (people.subscriptions as unknown[]) : [];
  subscriptions.forEach((item, index) => {
    const sub = recordAt(item);
    const path = ['people', 'subscriptions', index];
    checkReference(sub.person, known, [...path, 'person'], 'person', ctx);
    checkReference(sub.workspace, [...books.keys()], [...path, 'workspace'], 'workspace', ctx);
    const inScope = [...books]
      .filter(([ws]) => typeof sub.workspace !== 'string' || ws === sub.workspace)
      .flatMap(([, list]) => list);
    const asins = [...new Set(inScope.flatMap((book) => (book.asin === undefined ? [] : [book.asin])))];
    if (Array.isArray(sub.asin))
      sub.asin.forEach((asin: unknown, at) => {
        checkReference(asin, asins, [...path, 'asin', at], 'book (ASIN)', ctx);
      });
    const authors = [...new Set(inScope.flatMap((book) => (book.author === undefined ? [] : [book.author])))];
    if (typeof sub.author === 'string')
      checkReference(sub.author.trim(), authors, [...path, 'author'], 'author', ctx);
    const person = recordAt(accounts[known.indexOf(String(sub.person))]);
    const byEmail =
      sub.via === 'email' ||
      (sub.digest === true && sub.via !== 'channel') ||
      (sub.via === undefined && person.channel === undefined);
    if (byEmail && mail === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['people', 'mailChannel'],
        message: `expected an email channel for people's mail (subscriptions[${index}] sends email), got ${emailChannels.length === 0 ? 'none' : `${emailChannels.length} without a choice`}`,
        params: { hint: 'add an email channel, or name one in people.mailChannel' },
      });
    if (sub.via === 'channel' && typeof sub.person === 'string' && person.channel === undefined)
      ctx.addIssue({
        code: 'custom',
        path: [...path, 'via'],
        message: `expected via: email, or a channel on person "${sub.person}", got via: channel and no channel`,
        params: { hint: 'give the person a channel, or leave via out' },
      });
  });
}
