/**
 * What a signed-in person may silence in the console. Admins (the console token, `role: admin`)
 * anything; a member only alerts about their own books (the books their subscriptions name), and
 * never a critical alert: a critical alert (a refused API key, source health) must reach people
 * whatever a member wanted (issue 25: "critical ones cannot be muted by a member"). Viewers are
 * refused every write before this (server.ts).
 */
import type { Person, Role, ShelfwatchConfig } from '../config/schema.ts';
import { MUTABLE_SEVERITIES } from '../silence/mute-link.ts';
import type { Silence, SilenceMatchers } from '../silence/silence.ts';
import type { Session } from './access/sessions.ts';
import { PERSON_SUBJECT, roleOf } from './auth.ts';

export interface Actor {
  role: Role | undefined;
  /** The person signed in; undefined for the console token. */
  personId: string | undefined;
  /** Recorded as the silence's author: `console` (the token) or `person:ID`. */
  by: string;
}

export function actorOf(session: Session | undefined, people: readonly Person[]): Actor {
  if (session === undefined) return { role: undefined, personId: undefined, by: 'console' };
  const personId = session.subject.startsWith(PERSON_SUBJECT)
    ? session.subject.slice(PERSON_SUBJECT.length)
    : undefined;
  return {
    role: roleOf(session, people),
    personId,
    by: personId === undefined ? 'console' : session.subject,
  };
}

/** `workspace|ASIN` of every configured book a person's alert subscriptions cover. */
export function booksOfPerson(config: ShelfwatchConfig, personId: string): Set<string> {
  const books = new Set<string>();
  for (const sub of config.people.subscriptions) {
    if (sub.person !== personId || !sub.alerts) continue;
    for (const ws of config.workspaces) {
      if (sub.workspace !== undefined && sub.workspace !== ws.id) continue;
      for (const book of ws.books) {
        const named = sub.asin === undefined || sub.asin.includes(book.asin);
        const byAuthor = sub.author === undefined || sub.author === book.author;
        if (named && byAuthor) books.add(`${ws.id}|${book.asin}`);
      }
    }
  }
  return books;
}

/** The configured books a silence's matchers can reach, `workspace|ASIN`; undefined: any alert. */
function booksReached(config: ShelfwatchConfig, m: SilenceMatchers): string[] | undefined {
  if (m.asin === undefined && m.author === undefined) return undefined;
  const reached: string[] = [];
  for (const ws of config.workspaces) {
    if (m.workspace !== undefined && m.workspace !== ws.id) continue;
    for (const book of ws.books) {
      if (m.asin !== undefined && !m.asin.includes(book.asin)) continue;
      if (m.author !== undefined && book.author !== m.author) continue;
      reached.push(`${ws.id}|${book.asin}`);
    }
  }
  return reached;
}

export type Scoped = { matchers: SilenceMatchers } | { problem: { field: string; reason: string } };

/**
 * The silence a person may set, or why not. A member's silence must name their books (by ASIN or
 * author) and leaves critical alerts out: without a severity matcher it gets `info, warning`.
 */
export function scopeSilence(config: ShelfwatchConfig, actor: Actor, matchers: SilenceMatchers): Scoped {
  if (actor.role === 'admin') return { matchers };
  if (matchers.severity?.includes('critical') === true) {
    return {
      problem: {
        field: 'severity',
        reason:
          'only admins can mute critical alerts (a refused API key, source health): they reach people whatever was muted',
      },
    };
  }
  const reached = booksReached(config, matchers);
  const own = actor.personId === undefined ? new Set<string>() : booksOfPerson(config, actor.personId);
  if (reached === undefined || reached.length === 0) {
    return {
      problem: {
        field: 'asin',
        reason: 'name your books (by ASIN or author): members silence their own books only',
      },
    };
  }
  const other = reached.find((book) => !own.has(book));
  if (other !== undefined) {
    const [ws, asin] = other.split('|');
    return {
      problem: {
        field: 'asin',
        reason: `${asin} of workspace "${ws}" is not one of your books (your subscriptions name them); members silence their own books only`,
      },
    };
  }
  return { matchers: { ...matchers, severity: matchers.severity ?? [...MUTABLE_SEVERITIES] } };
}

/** Whether a person may end this silence: admins any; a member only one on their own books. */
export function mayEnd(config: ShelfwatchConfig, actor: Actor, silence: Silence): boolean {
  if (actor.role === 'admin') return true;
  const reached = booksReached(config, silence.matchers);
  if (reached === undefined || reached.length === 0 || actor.personId === undefined) return false;
  const own = booksOfPerson(config, actor.personId);
  return reached.every((book) => own.has(book));
}
