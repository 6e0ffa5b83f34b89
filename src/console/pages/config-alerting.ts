/** Where alerts go and when they wait: routes, mute windows, and the digest (time, recipients). */
import { WEEKDAYS } from '../../config/mute-windows.ts';
import type { ShelfwatchConfig } from '../../config/schema.ts';
import { type Field, renderFields } from '../form-kit.ts';
import { html, type SafeHtml } from '../html.ts';
import { type PageContext, page } from '../layout.ts';
import {
  type ConfigPageState,
  formHead,
  postedFor,
  postedValue,
  revisionLine,
  stateNotices,
  stringOf,
} from './config-common.ts';

type Posted = { values: Record<string, string | string[]> } | undefined;
const SEVERITY_OPTIONS = ['info', 'warning', 'critical'].map((s) => ({ value: s, label: s }));

export interface AlertingInput {
  revision: number;
  config: ShelfwatchConfig;
  /** Whether the document lists routes (without, every alert goes to every channel). */
  routesWritten: boolean;
  state: ConfigPageState;
}

/** "Any workspace" or one: the match of a route or a mute window. */
function anyWorkspaceField(path: string, posted: Posted, config: ShelfwatchConfig): Field {
  return {
    name: 'workspace',
    label: 'Workspace',
    path: `${path}.match.workspace`,
    type: 'select',
    options: [{ value: '', label: 'any' }, ...config.workspaces.map((w) => ({ value: w.id, label: w.id }))],
    value: stringOf(posted, 'workspace'),
  };
}

export function routeFields(path: string, posted: Posted, config: ShelfwatchConfig): Field[] {
  return [
    anyWorkspaceField(path, posted, config),
    {
      name: 'asin',
      label: 'Books (ASINs)',
      path: `${path}.match.asin`,
      value: stringOf(posted, 'asin'),
      hint: 'comma-separated; empty: any',
    },
    {
      name: 'kind',
      label: 'Alert kinds',
      path: `${path}.match.kind`,
      value: stringOf(posted, 'kind'),
      hint: 'comma-separated, e.g. keyword_rank_drop; empty: any',
    },
    {
      name: 'severity',
      label: 'Severities',
      path: `${path}.match.severity`,
      type: 'checkboxes',
      options: SEVERITY_OPTIONS,
      value: postedValue(posted, 'severity', []),
    },
    {
      name: 'channels',
      label: 'Channels',
      path: `${path}.channels`,
      type: 'checkboxes',
      options: config.channels.map((c) => ({ value: c.id, label: c.id })),
      value: postedValue(posted, 'channels', []),
    },
    {
      name: 'options',
      label: 'Options',
      path: `${path}.digestOnly`,
      type: 'checkboxes',
      options: [
        { value: 'digestOnly', label: 'digest only (collected for the daily digest)' },
        { value: 'hideLowStarText', label: 'hide the text of low-star reviews' },
      ],
      value: postedValue(posted, 'options', []),
    },
  ];
}

export function muteFields(path: string, posted: Posted, config: ShelfwatchConfig): Field[] {
  return [
    {
      name: 'name',
      label: 'Name',
      path: `${path}.name`,
      value: stringOf(posted, 'name'),
      hint: 'lowercase letters, digits and "-"',
      required: true,
    },
    {
      name: 'timeZone',
      label: 'Time zone',
      path: `${path}.timeZone`,
      value: stringOf(posted, 'timeZone', 'UTC'),
    },
    {
      name: 'days',
      label: 'Days',
      path: `${path}.days`,
      type: 'checkboxes',
      options: WEEKDAYS.map((d) => ({ value: d, label: d })),
      value: postedValue(posted, 'days', []),
    },
    {
      name: 'start',
      label: 'From (local time)',
      path: `${path}.start`,
      type: 'time',
      value: stringOf(posted, 'start', '00:00'),
    },
    {
      name: 'end',
      label: 'Until (local time)',
      path: `${path}.end`,
      type: 'time',
      value: stringOf(posted, 'end', '00:00'),
      hint: 'equal to From: all day',
    },
    anyWorkspaceField(path, posted, config),
    {
      name: 'severity',
      label: 'Severities muted',
      path: `${path}.match`,
      type: 'checkboxes',
      options: SEVERITY_OPTIONS,
      value: postedValue(posted, 'severity', []),
    },
    { name: 'reason', label: 'Reason', path: `${path}.reason`, value: stringOf(posted, 'reason') },
  ];
}

export function digestFields(posted: Posted, config: ShelfwatchConfig): Field[] {
  return [
    {
      name: 'enabled',
      label: 'Daily digest',
      path: 'digest.enabled',
      type: 'select',
      options: [
        { value: 'true', label: 'on' },
        { value: 'false', label: 'off' },
      ],
      value: stringOf(posted, 'enabled', String(config.digest.enabled)),
    },
    {
      name: 'time',
      label: 'Time (in each recipient’s zone)',
      path: 'digest.time',
      type: 'time',
      value: stringOf(posted, 'time', config.digest.time),
    },
  ];
}

export function recipientFields(path: string, posted: Posted, config: ShelfwatchConfig): Field[] {
  return [
    {
      name: 'workspace',
      label: 'Workspace',
      path: `${path}.workspace`,
      type: 'select',
      options: config.workspaces.map((w) => ({ value: w.id, label: w.id })),
      value: stringOf(posted, 'workspace'),
    },
    {
      name: 'channel',
      label: 'Channel',
      path: `${path}.channel`,
      type: 'select',
      options: config.channels.map((c) => ({ value: c.id, label: c.id })),
      value: stringOf(posted, 'channel'),
    },
  ];
}

function removeButton(
  ctx: PageContext,
  revision: number,
  action: string,
  index: number,
  label: string,
): SafeHtml {
  return html`<form class="inline" method="post" action="${action}">${formHead(ctx, revision, 'remove')}<input type="hidden" name="index" value="${index}"><button type="submit" class="secondary" aria-label="${label}">Remove</button></form>`;
}

function describeMatch(match: Record<string, unknown>): string {
  const parts = Object.entries(match)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`);
  return parts.length === 0 ? 'every alert' : parts.join('; ');
}

export function alertingPage(ctx: PageContext, input: AlertingInput): string {
  const { config, revision, state } = input;
  const rp = postedFor(state, 'route');
  const mp = postedFor(state, 'mute');
  const dp = postedFor(state, 'digest');
  const cp = postedFor(state, 'recipient');
  const form = (id: string, action: string, label: string, fields: SafeHtml, submit: string) =>
    html`<form class="config" method="post" action="${action}" aria-labelledby="${id}">${formHead(ctx, revision, label)}${fields}<div class="actions"><button type="submit">${submit}</button></div></form>`;
  const body = html`${revisionLine(revision)}${stateNotices(state)}
<h2 id="routes">Routes</h2>
${input.routesWritten ? '' : html`<p class="mute">No routes written: every alert goes to every channel. The first route you add replaces that.</p>`}
${input.routesWritten ? html`<ul class="items">${config.routes.map((r, i) => html`<li class="wrap">${describeMatch(r.match)} → ${r.channels.join(', ')}${r.digestOnly ? ' (digest only)' : ''}${r.hideLowStarText ? ' (low-star text hidden)' : ''} ${removeButton(ctx, revision, '/config/routes/remove', i, `Remove route ${i + 1}`)}</li>`)}</ul>` : ''}
${form('routes', '/config/routes', 'route', renderFields(routeFields(`routes[${input.routesWritten ? config.routes.length : 0}]`, rp, config), rp?.problems ?? []), 'Add route')}
<h2 id="mute">Mute windows</h2>
${config.muteWindows.length === 0 ? html`<p class="mute">No mute windows.</p>` : html`<ul class="items">${config.muteWindows.map((w, i) => html`<li class="wrap"><strong>${w.name}</strong>: ${w.days?.join(', ') ?? 'every day'} ${w.start}–${w.end} ${w.timeZone}; ${describeMatch(w.match)}${w.reason === undefined ? '' : ` (${w.reason})`} ${removeButton(ctx, revision, '/config/mute-windows/remove', i, `Remove mute window ${w.name}`)}</li>`)}</ul>`}
${form('mute', '/config/mute-windows', 'mute', renderFields(muteFields(`muteWindows[${config.muteWindows.length}]`, mp, config), mp?.problems ?? []), 'Add mute window')}
<h2 id="digest">Daily digest</h2>
${form('digest', '/config/digest', 'digest', renderFields(digestFields(dp, config), dp?.problems ?? []), 'Save digest')}
<h3 id="recipients">Recipients</h3>
${config.digest.recipients.length === 0 ? html`<p class="mute">No recipients.</p>` : html`<ul class="items">${config.digest.recipients.map((r, i) => html`<li>${r.workspace} → ${r.channel} ${removeButton(ctx, revision, '/config/digest/recipients/remove', i, `Remove recipient ${r.workspace} to ${r.channel}`)}</li>`)}</ul>`}
${form('recipients', '/config/digest/recipients', 'recipient', renderFields(recipientFields(`digest.recipients[${config.digest.recipients.length}]`, cp, config), cp?.problems ?? []), 'Add recipient')}`;
  return page('Routes, mute windows and digest', ctx, body);
}
