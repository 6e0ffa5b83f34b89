// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
/**
 * Channels: the list (never a secret: a channel shows its id, type and quiet hours), "send a test"
 * per channel, quiet hours, and the add forms (one URL here; email, Telegram and ntfy in
 * config-channel-kinds.ts). A secret typed here (a webhook URL) is written into
 * the new revision, which the revision store keeps encrypted; the page never shows it again.
 */
import type { ChannelConfig } from '../../config/schema.ts';
import { type Field, renderFields } from '../form-kit.ts';
import { html, type SafeHtml } from '../html.ts';
import { type PageContext, page } from '../layout.ts';
import { kindForms } from './config-channel-kinds.ts';
import {
  type ConfigPageState,
  formHead,
  postedFor,
  postedValue,
  revisionLine,
  stateNotices,
  stringOf,
} from './config-common.ts';

/** Channel types the add form offers: one secret URL each (the others are written in a file). */
export const FORM_CHANNEL_TYPES = ['slack', 'discord', 'teams', 'webhook'] as const;
export type FormChannelType = (typeof FORM_CHANNEL_TYPES)[number];
/** The field of each type that holds its (secret) URL. */
export const URL_FIELD: Record<FormChannelType, 'webhookUrl' | 'url'> = {
  slack: 'webhookUrl',
  discord: 'webhookUrl',
  teams: 'webhookUrl',
  webhook: 'url',
};

type Posted = { values: Record<string, string | string[]> } | undefined;

export function addChannelFields(path: string, posted: Posted, type: string): Field[] {
  const urlKey = URL_FIELD[type as FormChannelType] ?? 'webhookUrl';
  return [
    {
      name: 'id',
      label: 'Channel id',
      path: `${path}.id`,
      value: stringOf(posted, 'id'),
      hint: 'lowercase letters, digits and "-"',
      required: true,
    },
    {
      name: 'type',
      label: 'Type',
      path: `${path}.type`,
      type: 'select',
      options: FORM_CHANNEL_TYPES.map((t) => ({ value: t, label: t })),
      value: stringOf(posted, 'type', 'slack'),
    },
    {
      name: 'url',
      label: 'Webhook URL (secret)',
      path: `${path}.${urlKey}`,
      type: 'password',
      hint: 'stored encrypted, never shown again; or a ${VAR} reference to the environment',
      required: true,
    },
    {
      name: 'signing',
      label: 'Signing secret (webhook type only)',
      path: `${path}.secret`,
      type: 'password',
      hint: 'at least 16 characters; the receiver checks each POST with it',
    },
    {
      name: 'allowAnyHost',
      label: 'Host',
      path: `${path}.allowAnyHost`,
      type: 'checkboxes',
      options: [
        { value: 'true', label: "allow a host other than the service's own (a proxy, a test receiver)" },
      ],
      value: postedValue(posted, 'allowAnyHost', []),
    },
  ];
}

export function quietFields(path: string, posted: Posted, channel: ChannelConfig): Field[] {
  const quiet = channel.quietHours;
  return [
    {
      name: 'start',
      label: 'Quiet from',
      path: `${path}.start`,
      type: 'time',
      value: stringOf(posted, 'start', quiet?.start ?? ''),
    },
    {
      name: 'end',
      label: 'until',
      path: `${path}.end`,
      type: 'time',
      value: stringOf(posted, 'end', quiet?.end ?? ''),
    },
    {
      name: 'timeZone',
      label: 'Time zone',
      path: `${path}.timeZone`,
      value: stringOf(posted, 'timeZone', quiet?.timeZone ?? 'UTC'),
      hint: 'IANA, e.g. Europe/Berlin',
    },
  ];
}

function channelItem(
  ctx: PageContext,
  revision: number,
  channel: ChannelConfig,
  index: number,
  state: ConfigPageState,
): SafeHtml {
  const posted = state.posted?.form === `quiet-${channel.id}` ? state.posted : undefined;
  const quiet = channel.quietHours;
  return html`<li><h3 id="ch-${channel.id}">${channel.id} <span class="mute">(${channel.type})</span></h3>
<p>${quiet === undefined ? 'No quiet hours.' : `Quiet ${quiet.start}–${quiet.end} ${quiet.timeZone} (critical alerts still go out).`}</p>
<form class="inline" method="post" action="/config/channels/${channel.id}/test">${formHead(ctx, revision, 'test')}<button type="submit" aria-label="Send a test to ${channel.id}">Send a test</button></form>
<form class="inline" method="post" action="/config/channels/${channel.id}/remove">${formHead(ctx, revision, 'remove-channel')}<button type="submit" class="secondary" aria-label="Remove channel ${channel.id}">Remove</button></form>
<form class="config" method="post" action="/config/channels/${channel.id}/quiet" aria-label="Quiet hours of ${channel.id}">${formHead(ctx, revision, `quiet-${channel.id}`)}
${renderFields(
  // One quiet-hours form per channel on this page: ids apart (f-quiet-team-start, …).
  quietFields(`channels[${index}].quietHours`, posted, channel).map((f) => ({
    ...f,
    idPrefix: `quiet-${channel.id}-`,
  })),
  posted?.problems ?? [],
)}
<div class="actions"><button type="submit" name="action" value="save">Save quiet hours</button>${quiet === undefined ? '' : html`<button type="submit" name="action" value="clear" class="secondary">No quiet hours</button>`}</div></form></li>`;
}

export function channelsPage(
  ctx: PageContext,
  input: {
    revision: number;
    channels: readonly ChannelConfig[];
    state: ConfigPageState;
    secretsNote?: string;
  },
): string {
  const posted = postedFor(input.state, 'channel');
  const path = `channels[${input.channels.length}]`;
  const body = html`${revisionLine(input.revision)}${stateNotices(input.state)}
<p>"Send a test" sends a sample alert straight through the channel (no grouping, quiet hours or pacing), as <code>shelfwatch test-alert</code> does.</p>
<ul class="items">${input.channels.map((c, i) => channelItem(ctx, input.revision, c, i, input.state))}</ul>
<h2 id="add-channel">Add a channel</h2>
${input.secretsNote === undefined ? '' : html`<p class="readonly" role="note">${input.secretsNote}</p>`}
<form class="config" method="post" action="/config/channels" aria-labelledby="add-channel">${formHead(ctx, input.revision, 'channel')}
${renderFields(addChannelFields(path, posted, stringOf(posted, 'type', 'slack')), posted?.problems ?? [])}
<div class="actions"><button type="submit">Add channel</button></div>
</form>
${kindForms(ctx, input.revision, path, input.state)}
<p class="hint">Outbox and log channels are written in the config file (<code>shelfwatch config apply</code>).</p>`;
  return page('Channels', ctx, body);
}
