/**
 * Using a mute link: what it would do (for the confirmation page a GET shows) and doing it (the
 * POST), once. The nonce is claimed in Redis before the silence is stored (SET NX, kept until the
 * link expires), so two POSTs of one link — a person and their mail provider, or a replay — set
 * one silence, and the second gets "already used" with nothing changed.
 */
import type { Cluster, Redis } from 'ioredis';
import { KIND_LABEL } from '../channels/render/text.ts';
import { DAY_MS, HOUR_MS } from '../util/time-units.ts';
import { silenceKeys } from './keys.ts';
import { MUTE_FOR_MS, type MuteClaims, matchersOf, readMuteLink } from './mute-link.ts';
import type { Silence } from './silence.ts';
import type { SilenceStore } from './store.ts';

/** Where a used link is noted beside the alert it came with (the console's alert log). */
export interface MuteNoteLog {
  noteMuted(
    fingerprint: string,
    note: { silenceId: string; by: string; reason: string; atMs: number },
  ): Promise<void>;
}

export type MuteLinkState =
  | { state: 'ready'; claims: MuteClaims; description: string }
  | { state: 'critical'; claims: MuteClaims }
  | { state: 'forged' | 'malformed' | 'expired' | 'used' };

export type MuteOutcome =
  | { state: 'muted'; silence: Silence; description: string }
  | Exclude<MuteLinkState, { state: 'ready' }>;

/** How the POST came: the page's button, or a mail client's one-click unsubscribe (RFC 8058). */
export type MuteVia = 'page' | 'one-click';

const HOURS = (ms: number) => `${Math.round(ms / HOUR_MS)} hours`;
const DAYS = (ms: number) => `${Math.round(ms / DAY_MS)} days`;

/** One sentence: what the POST would do. */
export function describeClaims(c: MuteClaims): string {
  const where = `sent to the channel "${c.ch}"`;
  if (c.act === 'unsubscribe')
    return `Stop every alert ${where} (except critical ones) for ${DAYS(MUTE_FOR_MS.unsubscribe)}.`;
  const kind = c.kind === undefined ? 'alerts' : `"${KIND_LABEL[c.kind]}" alerts`;
  if (c.act === 'book') {
    const book = `${c.asin ?? ''}${c.mp === undefined ? '' : ` (${c.mp})`}`;
    return `Mute every alert about the book ${book} of workspace "${c.ws ?? ''}" ${where} for ${HOURS(MUTE_FOR_MS.book)} (critical ones still come).`;
  }
  return `Mute ${kind} of workspace "${c.ws ?? ''}" ${where} for ${DAYS(MUTE_FOR_MS.kind)} (critical ones still come).`;
}

export class MuteLinkUse {
  private readonly usedKey: (nonce: string) => string;

  constructor(
    private readonly redis: Redis | Cluster,
    prefix: string,
    private readonly secret: string,
    private readonly silences: SilenceStore,
    private readonly log?: MuteNoteLog,
  ) {
    this.usedKey = silenceKeys(prefix).linkUsed;
  }

  /** What a GET shows: never writes. */
  async inspect(token: string, nowMs: number): Promise<MuteLinkState> {
    const read = readMuteLink(token, this.secret, nowMs);
    if (!read.ok) return { state: read.reason };
    if (read.claims.crit === true) return { state: 'critical', claims: read.claims };
    if ((await this.redis.exists(this.usedKey(read.claims.n))) === 1) return { state: 'used' };
    return { state: 'ready', claims: read.claims, description: describeClaims(read.claims) };
  }

  /** The POST: claims the link's nonce, then sets its silence. */
  async apply(token: string, nowMs: number, via: MuteVia): Promise<MuteOutcome> {
    const seen = await this.inspect(token, nowMs);
    if (seen.state !== 'ready') return seen;
    const { claims } = seen;
    const claimed = await this.redis.set(
      this.usedKey(claims.n),
      String(nowMs),
      'PX',
      Math.max(1, claims.exp - nowMs),
      'NX',
    );
    if (claimed !== 'OK') return { state: 'used' };
    const by = `mute link in a message to "${claims.ch}"`;
    const what =
      claims.act === 'unsubscribe'
        ? 'one-click unsubscribe'
        : claims.act === 'book'
          ? 'mute this book for a day'
          : 'mute this kind';
    const about = claims.t === undefined ? '' : ` (alert: ${claims.t})`;
    const reason = `${what}, ${via === 'one-click' ? "from the mail client's unsubscribe button (RFC 8058)" : "confirmed on the link's page"}${about}`;
    let silence: Silence;
    try {
      silence = await this.silences.add(
        {
          matchers: matchersOf(claims),
          startsAt: nowMs,
          endsAt: nowMs + MUTE_FOR_MS[claims.act],
          reason,
          createdBy: by,
        },
        nowMs,
      );
    } catch (error) {
      // Nothing was set: the link stays usable.
      await this.redis.del(this.usedKey(claims.n));
      throw error;
    }
    if (claims.fp !== undefined)
      await this.log?.noteMuted(claims.fp, { silenceId: silence.id, by, reason, atMs: nowMs });
    return { state: 'muted', silence, description: describeClaims(claims) };
  }
}
