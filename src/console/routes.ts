import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Runtime } from '../app/runtime.ts';
import { gatherStatus } from '../app/status.ts';
import { bookTitlesByAsin } from '../app/target-names.ts';
import { listDeadLetters, purgeDeadLetters, retryDeadLetters } from '../deliver/dead-letters.ts';
import type { AlertLogEntry } from '../history/alert-log.ts';
import { SilenceInputError } from '../silence/silence.ts';
import { silenceViews } from '../silence/view.ts';
import { registerBookRoutes } from './book-routes.ts';
import { notFound, type PageContext } from './layout.ts';
import { alertPage, alertsPage, parseAlertFilter, queryAlerts } from './pages/alerts.ts';
import { deadLettersPage } from './pages/dead-letters.ts';
import { overviewPage } from './pages/overview.ts';
import { parseSilenceForm, silencesPage } from './pages/silences.ts';
import { actorOf, mayEnd, scopeSilence } from './silence-scope.ts';

type Query = Record<string, unknown>;
const CHANNEL = /^[a-z0-9-]{1,64}$/;

export function registerPages(
  app: FastifyInstance,
  runtime: Runtime,
  context: (request: FastifyRequest) => PageContext,
): void {
  // Read per request: a revision applied since the console started adds or removes workspaces and
  // channels (app/live-config.ts replaces `runtime.config` whole).
  const now = () => runtime.clock.now();
  const workspaces = () => runtime.config.workspaces.map((ws) => ws.id);
  const channels = () => runtime.config.channels.map((c) => c.id);
  const html = 'text/html; charset=utf-8';
  // An alert raised before its book's title was known (or one without the fact) is named by the
  // title its book's snapshot holds now.
  const titled = async (entries: readonly AlertLogEntry[]): Promise<AlertLogEntry[]> => {
    if (!entries.some((e) => e.bookTitle === undefined && e.asin !== undefined)) return [...entries];
    const titles = await bookTitlesByAsin(runtime);
    return entries.map((e) => {
      const title = e.bookTitle === undefined && e.asin !== undefined ? titles.get(e.asin) : undefined;
      return title === undefined ? e : { ...e, bookTitle: title };
    });
  };

  app.get('/', async (request, reply) =>
    reply.type(html).send(overviewPage(context(request), await gatherStatus(runtime))),
  );

  app.get('/alerts', async (request, reply) => {
    const parsed = parseAlertFilter(request.query as Query);
    const lists = { workspaces: workspaces(), channels: channels() };
    if ('problems' in parsed) {
      return reply
        .code(400)
        .type(html)
        .send(alertsPage(context(request), { filter: {}, problems: parsed.problems, ...lists }));
    }
    const found = await queryAlerts(runtime.alertLog, parsed.filter);
    const result = { ...found, entries: await titled(found.entries) };
    return reply
      .type(html)
      .send(alertsPage(context(request), { filter: parsed.filter, problems: [], result, ...lists }));
  });

  app.get<{ Params: { id: string } }>('/alerts/:id', async (request, reply) => {
    const [entry] = await titled(await runtime.alertLog.get(request.params.id).then((e) => (e ? [e] : [])));
    if (entry === undefined) return notFound(reply, context(request), 'No alert with this id in the log.');
    return reply.type(html).send(alertPage(context(request), entry));
  });

  const silences = async () =>
    silenceViews(
      await runtime.silences.all(),
      await runtime.silences.hits(),
      now(),
      await bookTitlesByAsin(runtime),
    );
  app.get('/silences', async (request, reply) => {
    const added = (request.query as Query).added;
    const notice =
      typeof added === 'string' && /^[0-9a-f]{12}$/.test(added) ? `Silence ${added} added.` : undefined;
    return reply.type(html).send(
      silencesPage(context(request), {
        views: await silences(),
        workspaces: workspaces(),
        ...(notice === undefined ? {} : { notice }),
      }),
    );
  });
  const actor = (request: FastifyRequest) => actorOf(request.session, runtime.config.people.accounts);
  app.post('/silences', async (request, reply) => {
    const who = actor(request);
    const parsed = parseSilenceForm(request.body as Query, runtime.config, now(), who.by);
    const refuse = (
      problems: { field: string; reason: string }[],
      form: Record<string, string | undefined>,
      status = 400,
    ) =>
      reply
        .code(status)
        .type(html)
        .send(silencesPage(context(request), { views: [], problems, form, workspaces: workspaces() }));
    if ('problems' in parsed) return refuse(parsed.problems, parsed.form);
    // Members: their own books only, never critical alerts (silence-scope.ts).
    const scoped = scopeSilence(runtime.config, who, parsed.silence.matchers);
    if ('problem' in scoped) return refuse([scoped.problem], formOf(request.body as Query), 403);
    try {
      const silence = await runtime.silences.add({ ...parsed.silence, matchers: scoped.matchers }, now());
      return reply.redirect(`/silences?added=${silence.id}`, 303);
    } catch (error) {
      if (error instanceof SilenceInputError)
        return refuse([{ field: 'matchers', reason: error.message }], {});
      throw error;
    }
  });
  app.post<{ Params: { id: string } }>('/silences/:id/expire', async (request, reply) => {
    const silence = await runtime.silences.get(request.params.id);
    if (silence === undefined) return notFound(reply, context(request), 'No such silence.');
    if (!mayEnd(runtime.config, actor(request), silence)) {
      return reply
        .code(403)
        .type(html)
        .send(
          silencesPage(context(request), {
            views: await silences(),
            workspaces: workspaces(),
            problems: [{ field: 'matchers', reason: 'members end silences on their own books only' }],
          }),
        );
    }
    const ended = await runtime.silences.expire(request.params.id, now());
    if (ended === undefined) return notFound(reply, context(request), 'No such silence.');
    return reply.redirect('/silences', 303);
  });

  const deadLetterDeps = () => ({
    queue: runtime.deliverQueue,
    redis: runtime.redis,
    groups: runtime.deliveryDeps.groups,
    channelHealth: runtime.channelHealth,
    channels: channels(),
  });
  app.get('/dead-letters', async (request, reply) => {
    const query = request.query as Query;
    const channel =
      typeof query.channel === 'string' && CHANNEL.test(query.channel) ? query.channel : undefined;
    const done =
      typeof query.done === 'string' && /^(retried|purged) \d+$/.test(query.done) ? query.done : undefined;
    const letters = await listDeadLetters(
      deadLetterDeps(),
      channel === undefined ? {} : { channelId: channel },
    );
    return reply.type(html).send(
      deadLettersPage(context(request), {
        letters,
        ...(channel === undefined ? {} : { channel }),
        ...(done === undefined ? {} : { notice: `Dead letters ${done}.` }),
      }),
    );
  });
  const channelOf = (request: FastifyRequest): string | undefined => {
    const value = (request.body as Query).channel;
    return typeof value === 'string' && CHANNEL.test(value) ? value : undefined;
  };
  const actions = {
    retry: async (channelId: string) =>
      `retried ${(await retryDeadLetters(deadLetterDeps(), { channelId })).retried.length}`,
    purge: async (channelId: string) =>
      `purged ${(await purgeDeadLetters(deadLetterDeps(), { channelId })).length}`,
  };
  for (const [name, act] of Object.entries(actions)) {
    app.post(`/dead-letters/${name}`, async (request, reply) => {
      const channelId = channelOf(request);
      if (channelId === undefined)
        return reply
          .code(400)
          .type(html)
          .send(deadLettersPage(context(request), { letters: [], notice: 'channel: expected a channel id' }));
      return reply.redirect(`/dead-letters?done=${encodeURIComponent(await act(channelId))}`, 303);
    });
  }

  registerBookRoutes(app, runtime, context);
}

/** The silence form's fields as sent, shown again beside a refusal. */
function formOf(body: Query): Record<string, string | undefined> {
  const form: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(body)) {
    if (typeof value === 'string' && name !== '_csrf') form[name] = value.slice(0, 500);
  }
  return form;
}
