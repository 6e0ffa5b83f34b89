/**
 * What the demo says at its end: the summary when the story is done (what was scripted, what
 * shelfwatch said, where the files are), what a deadline cut short, and what the cleanup did.
 */
import { isAbsolute, relative } from 'node:path';
import type { ProducedDigest } from './digest.ts';
import { terminalSafe } from './progress.ts';
import type { DemoRedis } from './redis.ts';
import type { ScriptedEvent } from './script.ts';
import type { CapturedSlackMessage } from './slack-capture.ts';
import type { CapturedMail } from './smtp-capture.ts';
import type { DemoTracker } from './tracker.ts';

export interface SummaryInput {
  elapsedMs: number;
  simStartMs: number;
  simEndMs: number;
  speed: number;
  events: readonly ScriptedEvent[];
  slack: readonly CapturedSlackMessage[];
  slackDir: string;
  mail: readonly CapturedMail[];
  digest: ProducedDigest;
  logPath: string;
  cwd: string;
}

/** Paths under the working directory are shown relative to it: shorter, and what people type. */
export function shownPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

export function formatSummary(input: SummaryInput): string {
  const p = (path: string) => shownPath(path, input.cwd);
  const lines: string[] = [
    '',
    `shelfwatch demo finished in ${Math.round(input.elapsedMs / 1000)} s ` +
      `(sim clock ${hhmm(input.simStartMs)} → ${hhmm(input.simEndMs)} UTC at ${input.speed}× real time)`,
    '',
    'Scripted events and the alerts shelfwatch raised (each delivered to Slack and email):',
  ];
  input.events.forEach((event, i) => {
    lines.push(`  ${i + 1}. ${event.label}: ${event.description}`);
    const alert = event.alert;
    lines.push(
      alert === undefined ? '     → no alert' : `     → ${alert.kind}: ${terminalSafe(alert.title)}`,
    );
  });
  const digestMail = input.mail.find((m) => m.subject === input.digest.subject);
  lines.push(
    '',
    `Captured ${input.slack.length} Slack message(s) and ${input.mail.length} email(s), the digest among them:`,
    `  Slack JSON    ${p(input.slackDir)}/ (${input.slack.map((m) => m.path.split(/[\\/]/).pop()).join(', ')})`,
  );
  for (const mail of input.mail) {
    const html = mail.htmlPath === undefined ? '' : ' (+ .html)';
    const label = mail === digestMail ? 'Digest email' : 'Email';
    lines.push(`  ${label.padEnd(13)} ${p(mail.emlPath)}${html}`);
  }
  if (digestMail?.htmlPath !== undefined) lines.push(`  Digest HTML   ${p(digestMail.htmlPath)}`);
  lines.push(
    `  Digest file   ${p(input.digest.htmlPath)} (charts inlined; open it in a browser)`,
    `  Worker log    ${p(input.logPath)}`,
    '',
  );
  return lines.join('\n');
}

/** What the deadline cut short, in words. */
export function missingPart(tracker: DemoTracker, channels: readonly string[]): string {
  if (tracker.scripted.length === 0) return 'the first polls (baselines); is the simulator reachable?';
  const open = tracker.scripted.flatMap((event) => {
    if (event.scriptedAt === undefined) return [`the ${event.label} event to be scripted`];
    if (event.alert === undefined) return [`the ${event.expectedKind} alert`];
    const on = tracker.deliveredOn(event.alert.fingerprint);
    const left = channels.filter((c) => !on.has(c));
    return left.length === 0 ? [] : [`the ${event.expectedKind} alert on ${left.join(' and ')}`];
  });
  return open.length === 0 ? 'the digest' : open.join(', ');
}

/** What the cleanup did; undefined when nothing had been started. */
export function cleanupLine(
  redis: DemoRedis | undefined,
  prefix: string,
  keep: boolean,
  deleted: number | undefined,
): string | undefined {
  if (redis === undefined) return undefined;
  const stopped = 'Stopped    workers, captures and simulator';
  if (redis.server !== undefined) {
    const note = keep ? ' (with its data: --keep-redis-data needs a Redis of your own, e.g. REDIS_URL)' : '';
    return `${stopped}; the private redis-server is stopped${note}`;
  }
  if (keep) return `${stopped}; Redis keys under ${prefix} kept (--keep-redis-data)`;
  if (deleted === undefined) return `${stopped}; could not delete the keys under ${prefix} (see the log)`;
  return `${stopped}; ${deleted} Redis keys under ${prefix} deleted`;
}
