/**
 * The compact daily digest that chat channels (Slack, Discord, Teams) show: totals, movers, new
 * reviews and a link to the full report. The digest (`digest/compact.ts`) builds it from its
 * figures, worded and formatted already; each chat channel's renderer only lays it out and
 * escapes it. Every string here may hold untrusted text (book titles, keywords), so renderers
 * escape all of it.
 */

/**
 * The channel types whose notifier shows the compact digest (`sendDigest`); the digest
 * conformance test keeps this list equal to the registry's.
 */
export const DIGEST_CHAT_TYPES: readonly string[] = ['slack', 'discord', 'teams'];

/** One line of a section: a name (a book's title, a currency) and what happened to it. */
export interface DigestLine {
  label: string;
  value: string;
}

export interface DigestSection {
  heading: string;
  lines: DigestLine[];
  /** Lines the digest had but left out to stay compact ("…and N more"). */
  more: number;
}

export interface DigestMessage {
  /** Stable per workspace, day and recipient: idempotency keys, file names. */
  messageId: string;
  /** `Daily digest for acme — Fri 20 Nov: 87.12 USD royalties, 3 new reviews`. */
  title: string;
  sections: DigestSection[];
  /** Shown when nothing moved (every section empty). */
  quietLine?: string;
  /** Where the full report is (the console), when `console.publicUrl` is set. */
  reportUrl?: string;
  /** Says where else the full report went (the person's email) or how to get it. */
  footer: string;
}

/** Every line of a digest message, for renderers that budget their size. */
export function digestLineCount(message: DigestMessage): number {
  return message.sections.reduce((n, section) => n + section.lines.length, 0);
}
