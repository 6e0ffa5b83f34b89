/**
 * The config forms of a workspace: books (looked up with one request), keywords (typed or
 * discovered), campaigns, sales, cadences with the plan's verdict, and "poll now". Each save is a
 * new revision through the `ConfigEditor` (config-save.ts); nothing here writes the config otherwise.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Runtime } from '../app/runtime.ts';
import { targetsOfWorkspace } from '../poll/registry.ts';
import { parseDuration } from '../util/duration.ts';
import * as doc from './config-doc.ts';
import type { ConfigEditor, EditableRevision } from './config-editor.ts';
import { registerAlertingRoutes } from './config-routes-alerting.ts';
import { registerBookRoutes } from './config-routes-books.ts';
import { registerRuleRoutes } from './config-routes-rules.ts';
import { bodyOf, HTML, savedNotice, saveEdit } from './config-save.ts';
import { list, readForm, text } from './form-kit.ts';
import { html } from './html.ts';
import { notFound, type PageContext, page } from './layout.ts';
import type { ConfigPageState } from './pages/config-common.ts';
import { configIndexPage } from './pages/config-index.ts';
import { cadenceFields, type TargetRow, workspaceConfigPage } from './pages/config-workspace.ts';
import { type PlanPreview, previewPlan } from './plan-preview.ts';
import { pollCost, pollNow } from './poll-now.ts';

type Params = { ws: string };
const _LOOKUP_WAIT_MS = 5_000;

export function registerConfigRoutes(
  app: FastifyInstance,
  runtime: Runtime,
  context: (request: FastifyRequest) => PageContext,
  editor: ConfigEditor | undefined,
): void {
  if (editor === undefined) return;
  const wsOf = (view: EditableRevision, id: string) => {
    const ws = view.config.workspaces.find((w) => w.id === id);
    return ws === undefined
      ? undefined
      : { ws, path: `workspaces[${doc.workspaceIndex(view.document, id)}]` };
  };

  const workspacePage = async (
    request: FastifyRequest,
    view: EditableRevision,
    id: string,
    state: ConfigPageState,
    candidate?: PlanPreview,
  ) => {
    const found = wsOf(view, id);
    if (found === undefined) return undefined;
    const targets: TargetRow[] = await Promise.all(
      targetsOfWorkspace(found.ws).map(async (t) => {
        const health = await runtime.store.getHealth(t.ref);
        return {
          id: t.ref.id,
          kind: t.kind,
          cost: await pollCost(runtime, t),
          lastPollAt: health.lastPollAt,
          lastOutcome: health.lastOutcome,
        };
      }),
    );
    return workspaceConfigPage(context(request), {
      revision: view.revision,
      ws: found.ws,
      path: found.path,
      file: view.fileOf(id),
      targets,
      plan: await previewPlan(runtime, found.ws),
      ...(candidate === undefined ? {} : { candidate }),
      state,
    });
  };
  const rerenderWorkspace =
    (request: FastifyRequest, id: string) => async (view: EditableRevision, state: ConfigPageState) =>
      (await workspacePage(request, view, id, state)) ?? 'No such workspace.';
  const missing = (request: FastifyRequest, reply: FastifyReply) =>
    notFound(reply, context(request), 'No such workspace in the current revision.');

  // Until a revision is stored there is nothing to edit: every config page says how to store one.
  app.addHook('preHandler', async (request, reply) => {
    if (!request.url.startsWith('/config') || (await editor.hasRevision())) return;
    return reply
      .code(409)
      .type(HTML)
      .send(
        page(
          'Configuration',
          context(request),
          html`<p class="notice" role="status">No configuration revision is stored yet. Store the first with <code>shelfwatch config apply shelfwatch.yaml</code>; the forms here then edit it.</p>`,
        ),
      );
  });

  app.get('/config', async (request, reply) => {
    const view = await editor.current();
    return reply.type(HTML).send(configIndexPage(context(request), view, savedNotice(request.query)));
  });

  app.get<{ Params: Params }>('/config/workspaces/:ws', async (request, reply) => {
    const view = await editor.current();
    const notice = savedNotice(request.query);
    const body = await workspacePage(
      request,
      view,
      request.params.ws,
      notice === undefined ? {} : { notice },
    );
    return body === undefined ? missing(request, reply) : reply.type(HTML).send(body);
  });

  app.post<{ Params: Params }>('/config/workspaces/:ws/campaigns', async (request, reply) => {
    const id = request.params.ws;
    const { values, problems } = readForm(bodyOf(request), [
      { name: 'id', path: 'campaign' },
      { name: 'name', path: 'campaign name' },
    ]);
    const view = await editor.current();
    const path = `${wsOf(view, id)?.path ?? 'workspaces'}.campaigns`;
    return saveEdit(editor, request, reply, {
      form: 'campaign',
      values,
      problems: problems.map((p) => ({ ...p, path })),
      workspace: id,
      summary: `add campaign ${text(values, 'id')} to ${id}`,
      edit: (d) => doc.addCampaign(d, id, text(values, 'id'), text(values, 'name')),
      redirect: `/config/workspaces/${id}#campaigns`,
      render: rerenderWorkspace(request, id),
    });
  });

  app.post<{ Params: Params }>('/config/workspaces/:ws/campaigns/remove', async (request, reply) => {
    const id = request.params.ws;
    const { values } = readForm(bodyOf(request), [{ name: 'id', path: 'campaign' }]);
    return saveEdit(editor, request, reply, {
      form: 'remove-campaign',
      values,
      workspace: id,
      summary: `remove campaign ${text(values, 'id')} from ${id}`,
      edit: (d) => doc.removeCampaign(d, id, text(values, 'id')),
      redirect: `/config/workspaces/${id}#campaigns`,
      render: rerenderWorkspace(request, id),
    });
  });

  app.post<{ Params: Params }>('/config/workspaces/:ws/sales', async (request, reply) => {
    const id = request.params.ws;
    const view = await editor.current();
    const path = `${wsOf(view, id)?.path ?? 'workspaces'}.sales`;
    const { values, problems } = readForm(bodyOf(request), [
      { name: 'sales', path },
      { name: 'marketplaces', path: `${path}.marketplaces`, type: 'checkboxes' },
    ]);
    const mode = text(values, 'sales');
    const sales = mode === 'off' ? false : mode === 'all' ? 'all' : list(values, 'marketplaces');
    return saveEdit(editor, request, reply, {
      form: 'sales',
      values,
      problems,
      workspace: id,
      summary: `set the sales of ${id}`,
      edit: (d) => doc.setSales(d, id, sales),
      redirect: `/config/workspaces/${id}#sales`,
      render: rerenderWorkspace(request, id),
    });
  });

  app.post<{ Params: Params }>('/config/workspaces/:ws/cadence', async (request, reply) => {
    const id = request.params.ws;
    const view = await editor.current();
    const found = wsOf(view, id);
    if (found === undefined) return missing(request, reply);
    const { values, problems } = readForm(bodyOf(request), cadenceFields(found.path, found.ws));
    const edit = (d: doc.Edited['document']) =>
      doc.setCadences(d, id, Object.fromEntries(doc.CADENCE_KINDS.map((k) => [k, text(values, k)])));
    if (bodyOf(request).action === 'preview') {
      const checked =
        problems.length > 0
          ? { ok: false as const, problems }
          : await editor.check(edit(view.document).document);
      const state: ConfigPageState = {
        ...(checked.ok
          ? { notice: 'The plan for the cadences you typed is shown first: not saved yet.' }
          : {}),
        posted: { form: 'cadence', values, problems: checked.ok ? [] : checked.problems },
      };
      // The schema accepted them: the workspace as it would run with those fixed cadences.
      const cadence = Object.fromEntries(
        doc.CADENCE_KINDS.flatMap((k) => {
          const ms = parseDuration(text(values, k));
          return ms === undefined ? [] : [[k, ms]];
        }),
      );
      const preview = checked.ok ? await previewPlan(runtime, { ...found.ws, cadence }) : undefined;
      const body = await workspacePage(request, view, id, state, preview);
      return reply
        .code(preview === undefined ? 400 : 200)
        .type(HTML)
        .send(body ?? '');
    }
    return saveEdit(editor, request, reply, {
      form: 'cadence',
      values,
      problems,
      workspace: id,
      summary: `set the cadences of ${id}`,
      edit,
      redirect: `/config/workspaces/${id}#cadence`,
      render: rerenderWorkspace(request, id),
    });
  });

  app.post<{ Params: Params }>('/config/workspaces/:ws/poll', async (request, reply) => {
    const id = request.params.ws;
    const view = await editor.current();
    const target = bodyOf(request).target;
    const result = await pollNow(
      runtime,
      view.config,
      id,
      typeof target === 'string' ? target.slice(0, 300) : '',
    );
    const state: ConfigPageState = result.ok
      ? {
          notice: `Poll of ${String(target)} queued (job ${result.jobId}); it costs ${result.cost} request${result.cost === 1 ? '' : 's'}.`,
        }
      : { alert: `Not polled: ${result.reason}.` };
    const body = await workspacePage(request, view, id, state);
    if (body === undefined) return missing(request, reply);
    return reply
      .code(result.ok ? 202 : result.status)
      .type(HTML)
      .send(body);
  });

  registerBookRoutes(app, runtime, context, editor, { wsOf, rerenderWorkspace, missing });
  registerRuleRoutes(app, runtime, context, editor);
  registerAlertingRoutes(app, runtime, context, editor);
}
