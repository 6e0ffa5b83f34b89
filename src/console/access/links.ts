/**
 * One-time sign-in links: `subject.expiry.nonce.signature`, signed with HMAC-SHA-256 under a key
 * only the console holds, valid for 15 minutes, and usable once: the nonce is kept in Redis until
 * it is used or expires, and using it deletes it in the same command (GETDEL), so two processes
 * cannot both accept one link. A forged, altered, expired or replayed link is refused with the
 * reason and changes nothing.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { MINUTE_MS } from '../../util/time-units.ts';
import { sameSecret } from './secrets.ts';

export const LINK_MS = 15 * MINUTE_MS;

export type LinkRefusal = 'malformed' | 'forged' | 'expired' | 'used';

export type LinkCheck = { ok: true; subject: string } | { ok: false; refused: LinkRefusal };

const SUBJECT = /^[a-z0-9-]{1,64}$/;

export class SignInLinks {
  private readonly key: string;

  constructor(
    private readonly redis: Redis | Cluster,
    prefix: string,
    /** The signing key: a secret every process serving the console shares. */
    signingKey: string,
    private readonly now: () => number = Date.now,
  ) {
    this.key = `${prefix}:access:link:`;
    this.signingKey = createHash('sha256').update(`shelfwatch sign-in links\n${signingKey}`).digest();
  }

  private readonly signingKey: Buffer;

  private sign(payload: string): string {
    return createHmac('sha256', this.signingKey).update(payload).digest('base64url');
  }

  /** A new link's token for `subject` (a person's id); its nonce waits in Redis for 15 minutes. */
  async issue(subject: string): Promise<string> {
    if (!SUBJECT.test(subject)) throw new Error('a sign-in link names a person id');
    const nonce = randomBytes(18).toString('base64url');
    const payload = `${subject}.${this.now() + LINK_MS}.${nonce}`;
    await this.redis.set(`${this.key}${nonce}`, subject, 'PX', LINK_MS);
    return `${payload}.${this.sign(payload)}`;
  }

  /** Checks a link's token without using it (the confirmation page a GET shows). */
  check(token: unknown): LinkCheck & { nonce?: string } {
    if (typeof token !== 'string') return { ok: false, refused: 'malformed' };
    const parts = token.split('.');
    if (parts.length !== 4) return { ok: false, refused: 'malformed' };
    const [subject = '', expiry = '', nonce = '', signature = ''] = parts;
    if (!SUBJECT.test(subject) || !/^\d{1,15}$/.test(expiry) || !/^[A-Za-z0-9_-]{24}$/.test(nonce))
      return { ok: false, refused: 'malformed' };
    if (!sameSecret(signature, this.sign(`${subject}.${expiry}.${nonce}`)))
      return { ok: false, refused: 'forged' };
    if (Number(expiry) <= this.now()) return { ok: false, refused: 'expired' };
    return { ok: true, subject, nonce };
  }

  /** Uses a link: valid, unexpired and not used before, or refused with why. */
  async use(token: unknown): Promise<LinkCheck> {
    const checked = this.check(token);
    if (!checked.ok || checked.nonce === undefined)
      return checked.ok ? { ok: false, refused: 'malformed' } : checked;
    const stored = await this.redis.getdel(`${this.key}${checked.nonce}`);
    if (stored !== checked.subject) return { ok: false, refused: 'used' };
    return { ok: true, subject: checked.subject };
  }
}

export const LINK_REFUSALS: Record<LinkRefusal, string> = {
  malformed: 'This is not a sign-in link of this console (it is cut short or changed).',
  forged: 'This sign-in link was not signed by this console.',
  expired: 'This sign-in link has expired (links last 15 minutes). Ask for a new one.',
  used: 'This sign-in link was already used (each works once). Ask for a new one.',
};
