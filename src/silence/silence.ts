/**
 * Silences, in the spirit of Alertmanager's: matchers on an alert, a start and an end, a reason and
 * who set it. A silenced alert is recorded and counted, not sent (see `gate.ts`). This file is pure:
 * the shape, the checks that refuse bad input, and compiling many silences into one fast matcher.
 */
import { ALERT_KINDS, type Alert, type AlertKind, type AlertSubject, type Severity } from '../model/alert.ts';

export const SEVERITIES: readonly Severity[] = ['info', 'warning', 'critical'];

/** Every matcher given must hold; a silence must give at least one. */
export interface SilenceMatchers {
  workspace?: string;
  /** Any of these ASINs. */
  asin?: string[];
  /** The book's author as configured (`workspaces[].books[].author`), exact. */
  author?: string;
  /** The keyword, compared case-insensitively. */
  keyword?: string;
  kind?: AlertKind[];
  severity?: Severity[];
  rule?: string;
  /** Set by mute links: only what goes to this channel (the one whose message carried the link). */
  channel?: string;
  /**
   * Set by `snooze`: one firing condition (`conditionKey`) in one episode. Its resolve and the
   * next episode (after it cleared) carry another key, so a snooze ends when the condition resolves.
   */
  condition?: string;
}

export interface Silence {
  id: string;
  matchers: SilenceMatchers;
  startsAt: number;
  endsAt: number;
  reason: string;
  createdBy: string;
  createdAt: number;
  /** When someone expired it early (`endsAt` then moved to this time). */
  expiredAt?: number;
}

export type SilenceState = 'pending' | 'active' | 'expired';

export function silenceState(silence: Silence, nowMs: number): SilenceState {
  if (nowMs < silence.startsAt) return 'pending';
  return nowMs < silence.endsAt ? 'active' : 'expired';
}

/** Bad input for a silence: the reason is meant for the person who typed it (exit 2 in the CLI). */
export class SilenceInputError extends Error {
  override readonly name = 'SilenceInputError';
  readonly status = 400;
}

/** Refuses a silence that would match everything, end before it starts, or name unknown values. */
export function checkSilence(input: Omit<Silence, 'id' | 'createdAt'>): void {
  const { matchers } = input;
  const given = Object.entries(matchers).filter(([, value]) =>
    Array.isArray(value) ? value.length > 0 : value !== undefined && value !== '',
  );
  if (given.length === 0) {
    throw new SilenceInputError(
      'a silence needs at least one matcher (workspace, asin, author, keyword, kind, severity or rule): one without would mute every alert',
    );
  }
  for (const kind of matchers.kind ?? []) {
    if (!(ALERT_KINDS as readonly string[]).includes(kind)) {
      throw new SilenceInputError(`unknown alert kind "${kind}" (known: ${ALERT_KINDS.join(', ')})`);
    }
  }
  for (const severity of matchers.severity ?? []) {
    if (!SEVERITIES.includes(severity)) {
      throw new SilenceInputError(`unknown severity "${severity}" (known: ${SEVERITIES.join(', ')})`);
    }
  }
  if (!Number.isFinite(input.startsAt) || !Number.isFinite(input.endsAt)) {
    throw new SilenceInputError('a silence needs a start and an end time');
  }
  if (input.endsAt <= input.startsAt) {
    throw new SilenceInputError(
      `the end (${new Date(input.endsAt).toISOString()}) is not after the start (${new Date(input.startsAt).toISOString()})`,
    );
  }
  if (input.reason.trim() === '') throw new SilenceInputError('a silence needs a reason');
  if (input.createdBy.trim() === '') throw new SilenceInputError('a silence needs the name of who set it');
}

/**
 * One firing condition in one episode: workspace, rule, subject and the episode the alert belongs
 * to. Null for an alert that is not part of a condition (a new review, a sales revision).
 */
export function conditionKey(alert: Alert): string | null {
  if (alert.episode === undefined) return null;
  const subject: [string, string][] = [];
  for (const key of Object.keys(alert.subject).sort()) {
    const value = alert.subject[key as keyof AlertSubject];
    if (value !== undefined) subject.push([key, value]);
  }
  return JSON.stringify([alert.workspace, alert.ruleId, subject, alert.episode]);
}

/** The author of an alert's book, from the config (alerts carry the ASIN, not the author). */
export type AuthorLookup = (workspace: string, asin: string) => string | undefined;

/** What an alert matched: a silence from the store, or a mute window from the config. */
export interface SilenceMatch {
  /** The silence's id, or `mute:<name>` for a mute window. */
  id: string;
  reason: string;
}

export interface Muting {
  matchers: SilenceMatchers;
  match: SilenceMatch;
}

type AlertTest = (alert: Alert, channelId?: string) => boolean;

function compileOne(m: SilenceMatchers, authorOf: AuthorLookup): AlertTest {
  const asins = m.asin === undefined || m.asin.length === 0 ? undefined : new Set(m.asin);
  const kinds = m.kind === undefined || m.kind.length === 0 ? undefined : new Set<string>(m.kind);
  const severities = m.severity === undefined || m.severity.length === 0 ? undefined : new Set(m.severity);
  const keyword = m.keyword?.trim().toLowerCase();
  return (alert, channelId) => {
    if (m.workspace !== undefined && alert.workspace !== m.workspace) return false;
    if (m.channel !== undefined && channelId !== m.channel) return false;
    if (kinds !== undefined && !kinds.has(alert.kind)) return false;
    if (severities !== undefined && !severities.has(alert.severity)) return false;
    if (m.rule !== undefined && alert.ruleId !== m.rule) return false;
    const asin = alert.subject.asin;
    if (asins !== undefined && (asin === undefined || !asins.has(asin))) return false;
    if (m.author !== undefined && (asin === undefined || authorOf(alert.workspace, asin) !== m.author))
      return false;
    if (keyword !== undefined && alert.subject.keyword?.trim().toLowerCase() !== keyword) return false;
    if (m.condition !== undefined && (alert.status !== 'firing' || conditionKey(alert) !== m.condition))
      return false;
    return true;
  };
}

/**
 * Compiles the mutings in force into one matcher, built once per flush. Snoozes (one condition)
 * are looked up by key; the rest are checked in order, each a closure over prepared sets, so an
 * alert storm costs a few comparisons per alert and silence.
 */
export function compileMutings(
  mutings: readonly Muting[],
  authorOf: AuthorLookup,
): (alert: Alert, channelId?: string) => SilenceMatch | undefined {
  if (mutings.length === 0) return () => undefined;
  const byCondition = new Map<string, { test: AlertTest; match: SilenceMatch }[]>();
  const general: { test: AlertTest; match: SilenceMatch }[] = [];
  for (const muting of mutings) {
    const entry = { test: compileOne(muting.matchers, authorOf), match: muting.match };
    const key = muting.matchers.condition;
    if (key === undefined) general.push(entry);
    else byCondition.set(key, [...(byCondition.get(key) ?? []), entry]);
  }
  return (alert, channelId) => {
    if (byCondition.size > 0) {
      const key = conditionKey(alert);
      const snoozes = key === null ? undefined : byCondition.get(key);
      for (const entry of snoozes ?? []) if (entry.test(alert, channelId)) return entry.match;
    }
    for (const entry of general) if (entry.test(alert, channelId)) return entry.match;
    return undefined;
  };
}
