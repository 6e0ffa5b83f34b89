/**
 * The console's sign-in policy over the access module (`access/`): the token compared in constant
 * time, failed sign-ins throttled per client and for the token itself, sessions kept server-side
 * (revoked on logout), the cookie's attributes, and the Host names the console answers to (its bind
 * address and `console.publicUrl`; a DNS-rebinding page cannot talk to it under another name).
 */
import type { Cluster, Redis } from 'ioredis';
import { isLoopback } from '../config/console.ts';
import type { Person, Role } from '../config/schema.ts';
import { HOUR_MS, MINUTE_MS } from '../util/time-units.ts';
import { sameSecret } from './access/secrets.ts';
import { type Session, SessionStore } from './access/sessions.ts';
import { FailureThrottle, type ThrottleLimit, type ThrottleRefusal } from './access/throttle.ts';

export const SESSION_COOKIE = 'shelfwatch_session';
export const SESSION_MS = 12 * HOUR_MS;
/** The subject of sessions opened with the console token. */
const TOKEN_SUBJECT = 'token';
/** Sessions of a person: `person:ID` (their token or a sign-in link). */
export const PERSON_SUBJECT = 'person:';

/** Who may do what: admin edits everything; member their silences; viewer reads. */
export function roleOf(session: Session, people: readonly Person[]): Role | undefined {
  if (session.subject === TOKEN_SUBJECT) return 'admin';
  if (!session.subject.startsWith(PERSON_SUBJECT)) return undefined;
  const id = session.subject.slice(PERSON_SUBJECT.length);
  return people.find((person) => person.id === id)?.role;
}

/**
 * Ten wrong tokens from one address in 15 minutes block that address; a hundred from anywhere block
 * every sign-in with the token for the rest of the window (a session already open keeps working).
 */
export const LOGIN_LIMITS: readonly ThrottleLimit[] = [
  { scope: 'client', max: 10, windowMs: 15 * MINUTE_MS },
  { scope: 'secret', max: 100, windowMs: 15 * MINUTE_MS },
];

export type LoginResult =
  | { ok: true; session: Session }
  | { ok: false; refused: 'wrong' }
  | { ok: false; refused: 'throttled'; throttle: ThrottleRefusal };

export class ConsoleAuth {
  readonly sessions: SessionStore;
  private readonly throttle: FailureThrottle;

  constructor(
    private readonly token: string,
    redis: Redis | Cluster,
    prefix: string,
    now: () => number = Date.now,
    /**
     * People with a personal token sign in with it as with the console token, as themselves. Asked
     * at each sign-in: the people of the revision in force, not of the console's start.
     */
    private readonly people: () => readonly Person[] = () => [],
  ) {
    this.sessions = new SessionStore(redis, prefix, SESSION_MS, now);
    this.throttle = new FailureThrottle(redis, prefix, LOGIN_LIMITS);
  }

  /** Checks a sign-in with the token from `client`; a throttled one is refused even when right. */
  async login(client: string, given: unknown): Promise<LoginResult> {
    const subjects = { client, secret: TOKEN_SUBJECT };
    const throttle = await this.throttle.refusal(subjects);
    if (throttle !== undefined) return { ok: false, refused: 'throttled', throttle };
    const subject = typeof given === 'string' && given.length > 0 ? this.subjectOf(given) : undefined;
    if (subject === undefined) {
      await this.throttle.failed(subjects);
      return { ok: false, refused: 'wrong' };
    }
    await this.throttle.succeeded({ client });
    return { ok: true, session: await this.sessions.create(subject) };
  }

  /** Whose token this is; every token is compared (in constant time), so timing tells nothing. */
  private subjectOf(given: string): string | undefined {
    let subject = sameSecret(given, this.token) ? TOKEN_SUBJECT : undefined;
    for (const person of this.people()) {
      const token = person.token?.reveal();
      if (token !== undefined && sameSecret(given, token) && subject === undefined)
        subject = `${PERSON_SUBJECT}${person.id}`;
    }
    return subject;
  }
}

/**
 * Host headers the console answers to: its bind address (and the loopback names when bound there),
 * and the host of `console.publicUrl` when it is served behind a proxy under that name.
 */
export function allowedHosts(host: string, port: number, publicUrl?: string): Set<string> {
  const names = new Set([host]);
  if (isLoopback(host)) for (const name of ['127.0.0.1', 'localhost', '[::1]']) names.add(name);
  if (host.includes(':') && !host.startsWith('[')) names.add(`[${host}]`);
  const allowed = new Set([...names].map((name) => `${name}:${port}`.toLowerCase()));
  if (publicUrl !== undefined) allowed.add(new URL(publicUrl).host.toLowerCase());
  return allowed;
}
