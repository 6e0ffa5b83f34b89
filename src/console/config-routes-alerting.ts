// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
/**
 * The config forms of delivery: channels (add, remove, quiet hours, "send a test"), routes, mute
 * windows and the digest. Saves go through `saveEdit` (a new revision based on the form's).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createNotifiers } from '../app/notifiers.ts';
import type { Runtime } from '../app/runtime.ts';
import { sendSampleAlert } from '../deliver/sample-alert.ts';
import * as doc from './config-doc.ts';
import type { ConfigEditor, EditableRevision } from './config-editor.ts';
import { bodyOf, HTML, savedNotice, saveEdit } from './config-save.ts';
import { formProblem, list, readForm, text } from './form-kit.ts';
import { notFound, type PageContext } from './layout.ts';
import {
  alertingPage,
  digestFields,
  muteFields,
  recipientFields,
  routeFields,
} from './pages/config-alerting.ts';
import { isMoreChannelType, kindEntry, kindFields } from './pages/config-channel-kinds.ts';
import {
  addChannelFields,
  channelsPage,
  type FormChannelType,
  quietFields,
  URL_FIELD,
} from './pages/config-channels.ts';
import type { ConfigPageState } from './pages/config-common.ts';

/** A test that gets no answer in this time is reported as such (Slack's own timeout is 10 s). */
const TEST_TIMEOUT_MS = 15_000;

const csv = (value: string) =>
  value
    .split(/[\s,]+/)
    .map((v) => v.trim())
    .filter((v) => v !== '');

export function registerAlertingRoutes(
  app: FastifyInstance,
  runtime: Runtime,
  context: (request: FastifyRequest) => PageContext,
  editor: ConfigEditor,
): void {
  const channels = (request: FastifyRequest) => async (view: EditableRevision, state: ConfigPageState) =>
    channelsPage(context(request), {
      revision: view.revision,
      channels: view.config.channels,
      state,
      ...(view.canSeal
        ? {}
        : {
            secretsNote:
              'SHELFWATCH_CONFIG_KEY is not set in this process, so a secret typed here cannot be stored encrypted (and is never stored in clear): give the URL as a ${NAME} reference to an environment variable set in every process, or set the key (openssl rand -base64 32).',
          }),
    });
  const alerting = (request: FastifyRequest) => async (view: EditableRevision, state: ConfigPageState) =>
    alertingPage(context(request), {
      revision: view.revision,
      config: view.config,
      routesWritten: Array.isArray(view.document.routes),
      state,
    });
  const show =
    (render: typeof channels) => async (request: FastifyRequest, reply: import('fastify').FastifyReply) => {
      const notice = savedNotice(request.query);
      return reply
        .type(HTML)
        .send(await render(request)(await editor.current(), notice === undefined ? {} : { notice }));
    };
  app.get('/config/channels', show(channels));
  app.get('/config/alerting', show(alerting));

  app.post('/config/channels', async (request, reply) => {
    const view = await editor.current();
    const path = `channels[${view.config.channels.length}]`;
    const type = typeof bodyOf(request).type === 'string' ? String(bodyOf(request).type) : 'slack';
    if (isMoreChannelType(type)) {
      const read = readForm(bodyOf(request), kindFields(type, path, undefined));
      const { entry, kept } = kindEntry(type, read.values);
      return saveEdit(editor, request, reply, {
        form: `channel-${type}`,
        values: kept,
        problems: read.problems,
        summary: `add ${type} channel ${text(read.values, 'id')}`,
        edit: (d) => doc.appendTo(d, 'channels', entry),
        redirect: '/config/channels',
        render: channels(request),
      });
    }
    const fields = addChannelFields(path, undefined, type);
    const { values, problems } = readForm(bodyOf(request), fields);
    const urlKey = URL_FIELD[type as FormChannelType];
    if (urlKey === undefined)
      problems.push(
        formProblem(`${path}.type`, 'expected slack, discord, teams, webhook, email, telegram or ntfy'),
      );
    // The URL is a secret: never sent back to the browser with the refused form.
    const { url: _url, signing: _signing, ...kept } = values;
    return saveEdit(editor, request, reply, {
      form: 'channel',
      values: kept,
      problems,
      summary: `add ${type} channel ${text(values, 'id')}`,
      edit: (d) =>
        doc.appendTo(d, 'channels', {
          id: text(values, 'id'),
          type,
          [urlKey ?? 'webhookUrl']: text(values, 'url'),
          ...(type === 'webhook' ? { secret: text(values, 'signing') } : {}),
          ...(list(values, 'allowAnyHost').includes('true') && type !== 'webhook'
            ? { allowAnyHost: true }
            : {}),
        }),
      redirect: '/config/channels',
      render: channels(request),
    });
  });

  app.post<{ Params: { id: string } }>('/config/channels/:id/remove', async (request, reply) =>
    saveEdit(editor, request, reply, {
      form: 'remove-channel',
      values: {},
      summary: `remove channel ${request.params.id}`,
      edit: (d) => {
        const index = doc.channelIndex(d, request.params.id);
        if (index < 0)
          throw new doc.MissingEntry(`no channel "${request.params.id}" in the current revision`);
        return doc.removeAt(d, 'channels', index);
      },
      redirect: '/config/channels',
      render: channels(request),
    }),
  );

  app.post<{ Params: { id: string } }>('/config/channels/:id/quiet', async (request, reply) => {
    const id = request.params.id;
    const view = await editor.current();
    const index = view.config.channels.findIndex((c) => c.id === id);
    const channel = view.config.channels[index];
    if (channel === undefined)
      return notFound(reply, context(request), 'No such channel in the current revision.');
    const { values, problems } = readForm(
      bodyOf(request),
      quietFields(`channels[${index}].quietHours`, undefined, channel),
    );
    const clear = bodyOf(request).action === 'clear';
    return saveEdit(editor, request, reply, {
      form: `quiet-${id}`,
      values,
      problems,
      summary: clear ? `no quiet hours on ${id}` : `quiet hours of ${id}`,
      edit: (d) =>
        doc.setQuietHours(
          d,
          id,
          clear
            ? undefined
            : { start: text(values, 'start'), end: text(values, 'end'), timeZone: text(values, 'timeZone') },
        ),
      redirect: `/config/channels#ch-${id}`,
      render: channels(request),
    });
  });

  app.post<{ Params: { id: string } }>('/config/channels/:id/test', async (request, reply) => {
    const view = await editor.current();
    const channel = view.config.channels.find((c) => c.id === request.params.id);
    if (channel === undefined)
      return notFound(reply, context(request), 'No such channel in the current revision.');
    // Built from the revision's own settings, as `test-alert` builds it: the channel as saved works or not.
    const notifier = createNotifiers([channel], {
      logger: runtime.logger,
      smtp: runtime.smtp,
      clock: runtime.clock,
    }).get(channel.id);
    if (notifier === undefined) throw new Error(`no notifier for channel ${channel.id}`);
    try {
      const result = await sendSampleAlert(
        notifier,
        runtime.clock.now(),
        AbortSignal.timeout(TEST_TIMEOUT_MS),
        channel.timeZone,
      );
      const state: ConfigPageState = result.ok
        ? { notice: `Test sent through ${channel.id}: the channel accepted it.` }
        : { alert: `The test through ${channel.id} failed: ${result.reason.slice(0, 300)}` };
      return reply
        .code(result.ok ? 200 : 502)
        .type(HTML)
        .send(await channels(request)(view, state));
    } finally {
      await notifier.close?.();
    }
  });

  app.post('/config/routes', async (request, reply) => {
    const view = await editor.current();
    const path = `routes[${Array.isArray(view.document.routes) ? view.config.routes.length : 0}]`;
    const { values, problems } = readForm(bodyOf(request), routeFields(path, undefined, view.config));
    const match: Record<string, unknown> = {};
    if (text(values, 'workspace') !== '') match.workspace = text(values, 'workspace');
    if (text(values, 'asin') !== '') match.asin = csv(text(values, 'asin').toUpperCase());
    if (text(values, 'kind') !== '') match.kind = csv(text(values, 'kind'));
    if (list(values, 'severity').length > 0) match.severity = list(values, 'severity');
    const options = list(values, 'options');
    return saveEdit(editor, request, reply, {
      form: 'route',
      values,
      problems,
      summary: `add a route to ${list(values, 'channels').join(', ')}`,
      edit: (d) =>
        doc.appendTo(d, 'routes', {
          match,
          channels: list(values, 'channels'),
          ...(options.includes('digestOnly') ? { digestOnly: true } : {}),
          ...(options.includes('hideLowStarText') ? { hideLowStarText: true } : {}),
        }),
      redirect: '/config/alerting#routes',
      render: alerting(request),
    });
  });

  const removeIndexed = (url: string, key: 'routes' | 'muteWindows' | 'recipients', what: string) =>
    app.post(url, async (request, reply) => {
      const index = Number(bodyOf(request).index);
      return saveEdit(editor, request, reply, {
        form: 'remove',
        values: {},
        summary: `remove ${what} ${index + 1}`,
        edit: (d) => (key === 'recipients' ? doc.removeRecipient(d, index) : doc.removeAt(d, key, index)),
        redirect: '/config/alerting',
        render: alerting(request),
      });
    });
  removeIndexed('/config/routes/remove', 'routes', 'route');
  removeIndexed('/config/mute-windows/remove', 'muteWindows', 'mute window');
  removeIndexed('/config/digest/recipients/remove', 'recipients', 'digest recipient');

  app.post('/config/mute-windows', async (request, reply) => {
    const view = await editor.current();
    const path = `muteWindows[${view.config.muteWindows.length}]`;
    const { values, problems } = readForm(bodyOf(request), muteFields(path, undefined, view.config));
    const match: Record<string, unknown> = {};
    if (text(values, 'workspace') !== '') match.workspace = text(values, 'workspace');
    if (list(values, 'severity').length > 0) match.severity = list(values, 'severity');
    return saveEdit(editor, request, reply, {
      form: 'mute',
      values,
      problems,
      summary: `add mute window ${text(values, 'name')}`,
      edit: (d) =>
        doc.appendTo(d, 'muteWindows', {
          name: text(values, 'name'),
          timeZone: text(values, 'timeZone') || 'UTC',
          ...(list(values, 'days').length > 0 ? { days: list(values, 'days') } : {}),
          start: text(values, 'start') || '00:00',
          end: text(values, 'end') || '00:00',
          match,
          ...(text(values, 'reason') === '' ? {} : { reason: text(values, 'reason') }),
        }),
      redirect: '/config/alerting#mute',
      render: alerting(request),
    });
  });

  app.post('/config/digest', async (request, reply) => {
    const view = await editor.current();
    const { values, problems } = readForm(bodyOf(request), digestFields(undefined, view.config));
    return saveEdit(editor, request, reply, {
      form: 'digest',
      values,
      problems,
      summary: `digest ${text(values, 'enabled') === 'true' ? 'on' : 'off'} at ${text(values, 'time')}`,
      edit: (d) =>
        doc.setDigest(d, { enabled: text(values, 'enabled') === 'true', time: text(values, 'time') }),
      redirect: '/config/alerting#digest',
      render: alerting(request),
    });
  });

  app.post('/config/digest/recipients', async (request, reply) => {
    const view = await editor.current();
    const path = `digest.recipients[${view.config.digest.recipients.length}]`;
    const { values, problems } = readForm(bodyOf(request), recipientFields(path, undefined, view.config));
    return saveEdit(editor, request, reply, {
      form: 'recipient',
      values,
      problems,
      summary: `digest to ${text(values, 'channel')} for ${text(values, 'workspace')}`,
      edit: (d) =>
        doc.addRecipient(d, { workspace: text(values, 'workspace'), channel: text(values, 'channel') }),
      redirect: '/config/alerting#recipients',
      render: alerting(request),
    });
  });
}
