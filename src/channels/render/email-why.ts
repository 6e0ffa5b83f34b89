/**
 * Why an email was sent and how to stop it: every alert email ends with these lines (plain text;
 * the HTML part escapes them). They name the config key that sends it (`routes[].channels`) and
 * the commands that mute it, built from the alerts' own ids (workspace, kind, rule, fingerprint).
 */
import type { Alert } from '../../model/alert.ts';
import { oneLine } from '../../util/one-line.ts';
import { KIND_LABEL } from './text.ts';

function distinct<T extends string>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

/** The command that snoozes one firing condition, or undefined for events and resolves. */
export function snoozeCommand(alert: Alert): string | undefined {
  if (alert.episode === undefined || alert.status !== 'firing') return undefined;
  return `shelfwatch snooze ${alert.fingerprint}`;
}

/** A value as one shell word: as it is when plain, else in single quotes (`*` would expand to file names). */
export function shellWord(value: string): string {
  const text = oneLine(value);
  return /^[A-Za-z0-9._,:@%+=/-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

export function whyLines(alerts: readonly Alert[], channelId: string | undefined): string[] {
  if (alerts.length === 0) return [];
  const workspaces = distinct(alerts.map((a) => a.workspace));
  const kinds = distinct(alerts.map((a) => a.kind));
  const rules = distinct(alerts.map((a) => a.ruleId));
  const where = channelId === undefined ? 'this channel' : `the channel "${oneLine(channelId)}"`;
  const quoted = (list: string[]) => list.map((v) => `"${oneLine(v)}"`).join(', ');
  const flags = [
    workspaces.length === 1 ? `--workspace ${shellWord(workspaces[0] ?? '')}` : '',
    `--kind ${shellWord(kinds.join(','))}`,
    rules.length === 1 ? `--rule ${shellWord(rules[0] ?? '')}` : '',
  ].filter((flag) => flag !== '');
  return [
    `Why you got this: rule ${quoted(rules)} raised ${kinds.map((k) => `"${KIND_LABEL[k]}" (${k})`).join(', ')} alerts for workspace ${quoted(workspaces)}, and a route in the config (routes[].channels) sends such alerts to ${where}.`,
    `To mute alerts like these for a while: shelfwatch silence add ${flags.join(' ')} --for 24h --reason "…"; a firing condition alone: the "Snooze" line under it.`,
    `To stop them for good: remove ${channelId === undefined ? 'this channel' : `"${oneLine(channelId)}"`} from the matching routes[].channels in the config.`,
  ];
}
