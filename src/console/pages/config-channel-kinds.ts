// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
/**
 * The add forms of the channels that are more than one URL: email (an SMTP server, from, to),
 * Telegram (a bot token and a chat) and ntfy (a server, a topic, an optional token). One form per
 * type, since a page without script cannot change its fields with a select. Their secrets (SMTP
 * URL, bot token, topic, access token) go into the new revision, which the store keeps encrypted,
 * and never come back to the browser, not even with a refused form.
 */
import type { Field, FormValues } from '../form-kit.ts';
import { list, renderFields, text } from '../form-kit.ts';
import { html, type SafeHtml } from '../html.ts';
import type { PageContext } from '../layout.ts';
import { type ConfigPageState, formHead, postedFor, postedValue, stringOf } from './config-common.ts';

export const MORE_CHANNEL_TYPES = ['email', 'telegram', 'ntfy'] as const;
export type MoreChannelType = (typeof MORE_CHANNEL_TYPES)[number];

type Posted = { values: FormValues } | undefined;

const SECRET_HINT = 'stored encrypted, never shown again; or a ${VAR} reference to the environment';

interface ChannelKindForm {
  title: string;
  /** The type's own fields (the id is shared). */
  fields(path: string, posted: Posted): Field[];
  /** Form fields that hold secrets: never drawn again. */
  secrets: readonly string[];
  /** The channel entry of the config (without id and type), from the posted values. */
  entry(values: FormValues): Record<string, unknown>;
}

const optional = (key: string, value: string) => (value === '' ? {} : { [key]: value });

const FORMS: Record<MoreChannelType, ChannelKindForm> = {
  email: {
    title: 'Add an email channel',
    secrets: ['smtpUrl'],
    fields: (path, posted) => [
      {
        name: 'smtpUrl',
        label: 'SMTP server with credentials (secret)',
        path: `${path}.smtpUrl`,
        type: 'password',
        hint: `smtps://user:password@smtp.example.com:465; ${SECRET_HINT}`,
        required: true,
      },
      { name: 'from', label: 'From', path: `${path}.from`, value: stringOf(posted, 'from'), required: true },
      {
        name: 'to',
        label: 'To',
        path: `${path}.to`,
        value: stringOf(posted, 'to'),
        hint: 'one or more addresses, separated by commas or spaces',
        required: true,
      },
      {
        name: 'allowInsecure',
        label: 'Transport',
        path: `${path}.allowInsecure`,
        type: 'checkboxes',
        options: [
          { value: 'true', label: 'allow smtp:// off this machine without STARTTLS (sent unencrypted)' },
        ],
        value: postedValue(posted, 'allowInsecure', []),
      },
    ],
    entry: (values) => ({
      smtpUrl: text(values, 'smtpUrl'),
      from: text(values, 'from'),
      to: text(values, 'to')
        .split(/[\s,;]+/)
        .filter((address) => address !== ''),
      ...(list(values, 'allowInsecure').includes('true') ? { allowInsecure: true } : {}),
    }),
  },
  telegram: {
    title: 'Add a Telegram channel',
    secrets: ['botToken'],
    fields: (path, posted) => [
      {
        name: 'botToken',
        label: 'Bot token (secret)',
        path: `${path}.botToken`,
        type: 'password',
        hint: `from @BotFather, 123456:ABC-DEF…; ${SECRET_HINT}`,
        required: true,
      },
      {
        name: 'chatId',
        label: 'Chat',
        path: `${path}.chatId`,
        value: stringOf(posted, 'chatId'),
        hint: 'a chat id such as -1001234567890, or @channelname',
        required: true,
      },
      {
        name: 'apiUrl',
        label: 'Bot API server',
        path: `${path}.apiUrl`,
        value: stringOf(posted, 'apiUrl', 'https://api.telegram.org'),
      },
    ],
    entry: (values) => ({
      botToken: text(values, 'botToken'),
      chatId: text(values, 'chatId'),
      ...optional('apiUrl', text(values, 'apiUrl')),
    }),
  },
  ntfy: {
    title: 'Add an ntfy channel',
    secrets: ['topic', 'token'],
    fields: (path, posted) => [
      {
        name: 'serverUrl',
        label: 'Server',
        path: `${path}.serverUrl`,
        value: stringOf(posted, 'serverUrl', 'https://ntfy.sh'),
      },
      {
        name: 'topic',
        label: 'Topic (secret)',
        path: `${path}.topic`,
        type: 'password',
        hint: `on a public server the topic is what keeps others out; ${SECRET_HINT}`,
        required: true,
      },
      {
        name: 'token',
        label: 'Access token (secret, optional)',
        path: `${path}.token`,
        type: 'password',
        hint: 'tk_… for a protected topic',
      },
    ],
    entry: (values) => ({
      ...optional('serverUrl', text(values, 'serverUrl')),
      topic: text(values, 'topic'),
      ...optional('token', text(values, 'token')),
    }),
  },
};

export function isMoreChannelType(type: string): type is MoreChannelType {
  return (MORE_CHANNEL_TYPES as readonly string[]).includes(type);
}

/** The fields of `type`'s add form, its channel id first. */
export function kindFields(type: MoreChannelType, path: string, posted: Posted): Field[] {
  const fields: Field[] = [
    {
      name: 'id',
      label: 'Channel id',
      path: `${path}.id`,
      value: stringOf(posted, 'id'),
      hint: 'lowercase letters, digits and "-"',
      required: true,
    },
    ...FORMS[type].fields(path, posted),
  ];
  // Three such forms and the URL form share one page: their ids must differ (f-email-id, …).
  return fields.map((field) => ({ ...field, idPrefix: `${type}-` }));
}

/** The config entry of a new channel of `type`, and the posted values safe to draw again. */
export function kindEntry(
  type: MoreChannelType,
  values: FormValues,
): { entry: Record<string, unknown>; kept: FormValues } {
  const kept = Object.fromEntries(
    Object.entries(values).filter(([name]) => !FORMS[type].secrets.includes(name)),
  );
  return { entry: { id: text(values, 'id'), type, ...FORMS[type].entry(values) }, kept };
}

export function kindForms(
  ctx: PageContext,
  revision: number,
  path: string,
  state: ConfigPageState,
): SafeHtml[] {
  return MORE_CHANNEL_TYPES.map((type) => {
    const posted = postedFor(state, `channel-${type}`);
    return html`<h3 id="add-${type}">${FORMS[type].title}</h3>
<form class="config" method="post" action="/config/channels" aria-labelledby="add-${type}">${formHead(ctx, revision, `channel-${type}`)}<input type="hidden" name="type" value="${type}">
${renderFields(kindFields(type, path, posted), posted?.problems ?? [])}
<div class="actions"><button type="submit">Add ${type} channel</button></div>
</form>`;
  });
}
