/**
 * Server-side sessions in Redis: the cookie holds a random id, Redis holds the session under the
 * hash of that id with its expiry, so signing out (or an admin) ends a session for good and every
 * process serving the console sees the same sessions. The subject says who signed in (`token` for
 * the console token; a person's id later). The CSRF token is derived from the secret id, so it is
 * the same in every process and useless without the cookie.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { accessKeys } from './keys.ts';
import { sameSecret } from './secrets.ts';

export interface Session {
  /** The cookie's value (the secret id). */
  id: string;
  subject: string;
  createdAt: number;
  expiresAt: number;
}

const ID = /^[A-Za-z0-9_-]{43}$/;
const idHash = (id: string) => createHash('sha256').update(id).digest('base64url');

export class SessionStore {
  private readonly keys;

  constructor(
    private readonly redis: Redis | Cluster,
    prefix: string,
    readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.keys = accessKeys(prefix);
  }

  async create(subject: string): Promise<Session> {
    const id = randomBytes(32).toString('base64url');
    const createdAt = this.now();
    const session = { id, subject, createdAt, expiresAt: createdAt + this.ttlMs };
    await this.redis.set(
      this.keys.session(idHash(id)),
      JSON.stringify({ subject, createdAt, expiresAt: session.expiresAt }),
      'PX',
      this.ttlMs,
    );
    return session;
  }

  /** The live session this cookie names, or undefined (unknown, revoked, expired, malformed). */
  async get(id: string | undefined): Promise<Session | undefined> {
    if (id === undefined || !ID.test(id)) return undefined;
    const stored = await this.redis.get(this.keys.session(idHash(id)));
    if (stored === null) return undefined;
    const parsed = JSON.parse(stored) as { subject?: unknown; createdAt?: unknown; expiresAt?: unknown };
    const { subject, createdAt, expiresAt } = parsed;
    if (typeof subject !== 'string' || typeof createdAt !== 'number' || typeof expiresAt !== 'number')
      return undefined;
    return expiresAt > this.now() ? { id, subject, createdAt, expiresAt } : undefined;
  }

  /** Ends the session at once, in every process. */
  async revoke(id: string): Promise<void> {
    if (ID.test(id)) await this.redis.del(this.keys.session(idHash(id)));
  }

  csrfToken(session: Session): string {
    return createHmac('sha256', session.id).update('csrf').digest('base64url');
  }

  checkCsrf(session: Session, given: unknown): boolean {
    return typeof given === 'string' && given.length > 0 && sameSecret(given, this.csrfToken(session));
  }
}
