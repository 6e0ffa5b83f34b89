/**
 * Mute links: capabilities in messages. Each link is a signed token (`util/signed-token.ts`) that
 * says one thing — mute this book on this channel for a day, mute this kind on this channel, or
 * unsubscribe this channel (RFC 8058) — and until when it may be used. Opening it (GET) only shows
 * what it would do; its POST does it, once (`mute-apply.ts`). Critical alerts (source health, a
 * revoked key) get links too, which explain why they cannot be muted, and no silence a link makes
 * ever matches a critical alert. This file is pure: claims, signing, reading, and the silence a
 * claim stands for.
 */
import { createHash } from 'node:crypto';
import type { AlertLinks, MessageLinks } from '../channels/notifier.ts';
import { ALERT_KINDS, type Alert, type AlertKind, type Severity } from '../model/alert.ts';
import { oneLine } from '../util/one-line.ts';
import { signToken, verifyToken } from '../util/signed-token.ts';
import type { SilenceMatchers } from './silence.ts';

export type MuteAction = 'book' | 'kind' | 'unsubscribe';

/** What a link may do, signed: short keys, since the token travels in every message. */
export interface MuteClaims {
  v: 1;
  act: MuteAction;
  /** Channel whose message carried the link: the silence holds for it alone. */
  ch: string;
  /** Workspace of the alert (absent for unsubscribe, which covers the channel). */
  ws?: string;
  kind?: AlertKind;
  asin?: string;
  mp?: string;
  /** The alert's title, cut short, for the confirmation page and the record of who muted what. */
  t?: string;
  /** The alert's fingerprint, so the alert log can say it was muted from its message. */
  fp?: string;
  /** The alert was critical: the link explains, it never mutes. */
  crit?: true;
  /** Until when the link may be used (ms since the epoch). */
  exp: number;
  /** Single use: the nonce is remembered once used. */
  n: string;
}

import { DAY_MS } from '../util/time-units.ts';
/** How long what a link sets lasts. */
export const MUTE_FOR_MS: Readonly<Record<MuteAction, number>> = {
  book: DAY_MS,
  kind: 30 * DAY_MS,
  unsubscribe: 365 * DAY_MS,
};
/** How long a link stays usable after the message was sent (mail is read late; RFC 8058 POSTs later). */
export const LINK_TTL_MS: Readonly<Record<MuteAction, number>> = {
  book: 14 * DAY_MS,
  kind: 14 * DAY_MS,
  unsubscribe: 60 * DAY_MS,
};
/** Links never mute these: critical alerts reach people whatever they clicked. */
export const MUTABLE_SEVERITIES: readonly Severity[] = ['info', 'warning'];
const TITLE_CHARS = 120;

export interface MuteLinkSettings {
  /** `console.publicUrl`: where the links point (its /mute/ pages are public). */
  publicUrl: string;
  /** `console.linkSecret`: signs and checks every link. */
  secret: string;
}

function nonce(...parts: string[]): string {
  // Deterministic: a re-sent message carries the same links, so no second set can be used twice.
  return createHash('sha256').update(parts.join('\n')).digest('base64url').slice(0, 22);
}

function urlOf(settings: MuteLinkSettings, claims: MuteClaims): string {
  return new URL(`mute/${signToken({ ...claims }, settings.secret)}`, withSlash(settings.publicUrl)).href;
}

function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

function alertLinks(
  settings: MuteLinkSettings,
  alert: Alert,
  channelId: string,
  messageId: string,
  nowMs: number,
): AlertLinks {
  const { asin, marketplace } = alert.subject;
  const base = {
    v: 1 as const,
    ch: channelId,
    ws: alert.workspace,
    kind: alert.kind,
    t: oneLine(alert.title).slice(0, TITLE_CHARS),
    fp: alert.fingerprint,
    ...(alert.severity === 'critical' ? { crit: true as const } : {}),
  };
  const link = (act: 'book' | 'kind', extra: Partial<MuteClaims>) =>
    urlOf(settings, {
      ...base,
      ...extra,
      act,
      exp: nowMs + LINK_TTL_MS[act],
      n: nonce(messageId, channelId, alert.fingerprint, act),
    });
  return {
    ...(asin === undefined
      ? {}
      : { muteBook: link('book', { asin, ...(marketplace === undefined ? {} : { mp: marketplace }) }) }),
    muteKind: link('kind', {}),
    critical: alert.severity === 'critical',
  };
}

/** The links of one message to one channel. */
export function messageLinks(
  settings: MuteLinkSettings,
  alerts: readonly Alert[],
  channelId: string,
  messageId: string,
  nowMs: number,
): MessageLinks {
  const byAlert: Record<string, AlertLinks> = {};
  for (const alert of alerts)
    byAlert[alert.fingerprint] = alertLinks(settings, alert, channelId, messageId, nowMs);
  const unsubscribe = urlOf(settings, {
    v: 1,
    act: 'unsubscribe',
    ch: channelId,
    // The alert log notes the unsubscribe beside the message's first alert.
    ...(alerts[0] === undefined ? {} : { fp: alerts[0].fingerprint }),
    exp: nowMs + LINK_TTL_MS.unsubscribe,
    n: nonce(messageId, channelId, 'unsubscribe'),
  });
  return { alerts: byAlert, manage: new URL('silences', withSlash(settings.publicUrl)).href, unsubscribe };
}

export type LinkReading =
  | { ok: true; claims: MuteClaims }
  | { ok: false; reason: 'forged' | 'malformed' | 'expired' };

const ACTIONS: readonly string[] = ['book', 'kind', 'unsubscribe'];
const str = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 300;

/** Checks a token's signature, shape and expiry; says nothing about whether it was used. */
export function readMuteLink(token: string, secret: string, nowMs: number): LinkReading {
  const verified = verifyToken(token, secret);
  if (!verified.ok) return verified;
  const c = verified.payload;
  const shaped =
    c.v === 1 &&
    typeof c.act === 'string' &&
    ACTIONS.includes(c.act) &&
    str(c.ch) &&
    str(c.n) &&
    typeof c.exp === 'number' &&
    (c.act === 'unsubscribe' ||
      (str(c.ws) && typeof c.kind === 'string' && (ALERT_KINDS as readonly string[]).includes(c.kind))) &&
    (c.act !== 'book' || str(c.asin));
  // Signed by us yet not a claim we write: a secret shared with something else. Refused alike.
  if (!shaped) return { ok: false, reason: 'malformed' };
  const claims = c as unknown as MuteClaims;
  if (nowMs >= claims.exp) return { ok: false, reason: 'expired' };
  return { ok: true, claims };
}

/** The silence a link stands for: scoped to its channel, never matching a critical alert. */
export function matchersOf(claims: MuteClaims): SilenceMatchers {
  const scope = { channel: claims.ch, severity: [...MUTABLE_SEVERITIES] };
  if (claims.act === 'unsubscribe') return scope;
  const ws = claims.ws === undefined ? {} : { workspace: claims.ws };
  if (claims.act === 'book') return { ...ws, asin: [claims.asin ?? ''], ...scope };
  return { ...ws, kind: claims.kind === undefined ? [] : [claims.kind], ...scope };
}
