/** The rule-parameter forms of a workspace (config-routes.ts registers them). */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Runtime } from '../app/runtime.ts';
import { defaultRules } from '../rules/config.ts';
import * as doc from './config-doc.ts';
import type { ConfigEditor, EditableRevision } from './config-editor.ts';
import { bodyOf, HTML, savedNotice, saveEdit } from './config-save.ts';
import { readForm, text } from './form-kit.ts';
import { notFound, type PageContext } from './layout.ts';
import type { ConfigPageState } from './pages/config-common.ts';
import { paramValue, ruleFields, ruleParams, rulesPage } from './pages/config-rules.ts';

export function registerRuleRoutes(
  app: FastifyInstance,
  _runtime: Runtime,
  context: (request: FastifyRequest) => PageContext,
  editor: ConfigEditor,
): void {
  const defaults = defaultRules();
  const render =
    (request: FastifyRequest, id: string, kind: string | undefined) =>
    async (view: EditableRevision, state: ConfigPageState) => {
      const ws = view.config.workspaces.find((w) => w.id === id);
      if (ws === undefined) return 'No such workspace.';
      return rulesPage(context(request), {
        workspace: id,
        revision: view.revision,
        path: `workspaces[${doc.workspaceIndex(view.document, id)}]`,
        file: view.fileOf(id),
        shared: view.config.rules,
        own: ws.rules,
        defaults,
        books: ws.books.map((b) => b.asin),
        kind,
        state,
      });
    };

  app.get<{ Params: { ws: string }; Querystring: Record<string, unknown> }>(
    '/config/workspaces/:ws/rules',
    async (request, reply) => {
      const view = await editor.current();
      if (!view.config.workspaces.some((w) => w.id === request.params.ws))
        return notFound(reply, context(request), 'No such workspace in the current revision.');
      const kind = typeof request.query.kind === 'string' ? request.query.kind : undefined;
      const known = defaults.some((r) => r.kind === kind) ? kind : undefined;
      const notice = savedNotice(request.query);
      return reply
        .type(HTML)
        .send(await render(request, request.params.ws, known)(view, notice === undefined ? {} : { notice }));
    },
  );

  app.post<{ Params: { ws: string } }>('/config/workspaces/:ws/rules', async (request, reply) => {
    const id = request.params.ws;
    const kind = String(bodyOf(request).kind ?? '');
    const chosen = defaults.find((r) => r.kind === kind);
    const view = await editor.current();
    const ws = view.config.workspaces.find((w) => w.id === id);
    if (chosen === undefined || ws === undefined)
      return notFound(reply, context(request), 'No such workspace or rule kind.');
    const path = `workspaces[${doc.workspaceIndex(view.document, id)}].rules[${ws.rules.length}]`;
    const fields = ruleFields(
      path,
      chosen,
      ws.books.map((b) => b.asin),
    );
    const { values, problems } = readForm(bodyOf(request), fields);
    const rule: Record<string, unknown> = { id: text(values, 'id'), kind };
    if (text(values, 'scope') !== '') rule.books = [text(values, 'scope')];
    for (const [key] of ruleParams(chosen)) {
      const given = text(values, `p.${key}`);
      if (given !== '') rule[key] = paramValue(given);
    }
    return saveEdit(editor, request, reply, {
      form: 'rule',
      values,
      problems,
      workspace: id,
      summary: `add rule ${text(values, 'id')} (${kind}) to ${id}`,
      edit: (d) => doc.addRule(d, id, rule),
      redirect: `/config/workspaces/${id}/rules`,
      render: render(request, id, kind),
    });
  });

  app.post<{ Params: { ws: string } }>('/config/workspaces/:ws/rules/remove', async (request, reply) => {
    const id = request.params.ws;
    const ruleId = String(bodyOf(request).id ?? '');
    return saveEdit(editor, request, reply, {
      form: 'remove-rule',
      values: {},
      workspace: id,
      summary: `remove rule ${ruleId} from ${id}`,
      edit: (d) => doc.removeRule(d, id, ruleId),
      redirect: `/config/workspaces/${id}/rules`,
      render: render(request, id, undefined),
    });
  });
}
