/** The book forms of a workspace: add (looked up with one request), remove, keywords (typed or discovered). */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isAsin, type Marketplace } from '../api/index.ts';
import type { Runtime } from '../app/runtime.ts';
import type { WorkspaceConfig } from '../config/schema.ts';
import * as doc from './config-doc.ts';
import type { ConfigEditor, EditableRevision } from './config-editor.ts';
import { bodyOf, HTML, savedNotice, saveEdit } from './config-save.ts';
import { type Field, formProblem, list, readForm, text } from './form-kit.ts';
import { notFound, type PageContext } from './layout.ts';
import {
  addBookStepPage,
  keywordChoice,
  keywordFields,
  keywordsPage,
  type LookedUp,
} from './pages/config-book.ts';
import type { ConfigPageState } from './pages/config-common.ts';
import { addBookFields } from './pages/config-workspace.ts';

type Params = { ws: string };
type BookParams = { ws: string; asin: string };
/** An API lookup from a page waits at most this long for the minute's budget. */
const LOOKUP_WAIT_MS = 5_000;

/** What the workspace routes share with these. */
export interface WorkspaceViews {
  wsOf(view: EditableRevision, id: string): { ws: WorkspaceConfig; path: string } | undefined;
  rerenderWorkspace(
    request: FastifyRequest,
    id: string,
  ): (view: EditableRevision, state: ConfigPageState) => Promise<string>;
  missing(request: FastifyRequest, reply: FastifyReply): FastifyReply | Promise<FastifyReply>;
}

export function registerBookRoutes(
  app: FastifyInstance,
  runtime: Runtime,
  context: (request: FastifyRequest) => PageContext,
  editor: ConfigEditor,
  { wsOf, rerenderWorkspace, missing }: WorkspaceViews,
): void {
  app.post<{ Params: Params }>('/config/workspaces/:ws/books/lookup', async (request, reply) => {
    const id = request.params.ws;
    const view = await editor.current();
    const found = wsOf(view, id);
    if (found === undefined) return missing(request, reply);
    const fields = addBookFields(found.path);
    const { values, problems } = readForm(bodyOf(request), fields);
    const asin = text(values, 'asin').toUpperCase();
    if (problems.length === 0 && !isAsin(asin))
      problems.push(formProblem(`${found.path}.books`, 'expected an ASIN: 10 characters A-Z or 0-9'));
    if (problems.length === 0 && doc.hasBook(view.document, id, asin))
      problems.push(formProblem(`${found.path}.books`, `${asin} is already watched in this workspace`));
    const marketplaces = list(values, 'marketplaces');
    if (problems.length === 0 && marketplaces.length === 0)
      problems.push(formProblem(`${found.path}.books.marketplaces`, 'expected at least one marketplace'));
    if (view.fileOf(id) !== undefined || problems.length > 0) {
      const state =
        view.fileOf(id) !== undefined
          ? { alert: 'Not saved: this workspace is managed by a file.' }
          : { posted: { form: 'add-book', values, problems } };
      return reply
        .code(problems.length > 0 ? 400 : 409)
        .type(HTML)
        .send(await rerenderWorkspace(request, id)(view, state));
    }
    let looked: LookedUp | undefined;
    let failure: string | undefined;
    try {
      const client = runtime.interactiveClient(id, LOOKUP_WAIT_MS);
      const answer = await client.getBook(asin, {
        marketplace: marketplaces[0] as Marketplace,
        signal: AbortSignal.timeout(15_000),
      });
      const book = answer.data;
      looked = {
        title: book.title,
        author: book.author,
        bsr: book.bsr.rank,
        comps: book.comp_titles.slice(0, 20).map((c) => ({ asin: c.asin, title: c.title, bsr: c.bsr })),
      };
    } catch (error) {
      failure = error instanceof Error ? error.message.slice(0, 300) : 'unknown error';
    }
    const path = `${found.path}.books[${found.ws.books.length}]`;
    return reply.type(HTML).send(
      addBookStepPage(context(request), {
        workspace: id,
        revision: view.revision,
        path,
        asin,
        marketplaces,
        ...(looked === undefined ? {} : { found: looked }),
        ...(failure === undefined ? {} : { failure }),
        state: {},
      }),
    );
  });

  app.post<{ Params: Params }>('/config/workspaces/:ws/books', async (request, reply) => {
    const id = request.params.ws;
    const body = bodyOf(request);
    const asin = typeof body.asin === 'string' ? body.asin.trim().toUpperCase() : '';
    const pathNow = async () => {
      const view = await editor.current();
      const found = wsOf(view, id);
      return `${found?.path ?? 'workspaces'}.books[${found?.ws.books.length ?? 0}]`;
    };
    const path = await pathNow();
    const fields: Field[] = [
      { name: 'author', label: '', path: `${path}.author` },
      { name: 'marketplaces', label: '', path: `${path}.marketplaces`, type: 'checkboxes' },
      ...keywordFields(path, undefined),
    ];
    const { values, problems } = readForm(body, fields);
    const render = async (view: EditableRevision, state: ConfigPageState) =>
      addBookStepPage(context(request), {
        workspace: id,
        revision: view.revision,
        path,
        asin,
        marketplaces: list(values, 'marketplaces'),
        state,
      });
    return saveEdit(editor, request, reply, {
      form: 'book',
      values,
      problems,
      workspace: id,
      summary: `add book ${asin} to ${id}`,
      edit: (d) =>
        doc.addBook(d, id, {
          asin,
          marketplaces: list(values, 'marketplaces'),
          author: text(values, 'author'),
          keywords: keywordChoice(values),
        }),
      redirect: `/config/workspaces/${id}`,
      render,
    });
  });

  app.post<{ Params: BookParams }>('/config/workspaces/:ws/books/:asin/remove', async (request, reply) => {
    const { ws: id, asin } = request.params;
    return saveEdit(editor, request, reply, {
      form: 'remove-book',
      values: {},
      workspace: id,
      summary: `remove book ${asin} from ${id}`,
      edit: (d) => doc.removeBook(d, id, asin),
      redirect: `/config/workspaces/${id}`,
      render: rerenderWorkspace(request, id),
    });
  });

  const bookOf = (view: EditableRevision, id: string, asin: string) => {
    const found = wsOf(view, id);
    const index = found?.ws.books.findIndex((b) => b.asin === asin) ?? -1;
    const book = found?.ws.books[index];
    return found === undefined || book === undefined
      ? undefined
      : { book, path: `${found.path}.books[${index}]` };
  };
  const keywordsRender =
    (
      request: FastifyRequest,
      id: string,
      asin: string,
      discovered?: { keyword: string; trafficShare: number }[],
    ) =>
    async (view: EditableRevision, state: ConfigPageState) => {
      const found = bookOf(view, id, asin);
      if (found === undefined) return 'No such book.';
      return keywordsPage(context(request), {
        workspace: id,
        revision: view.revision,
        path: found.path,
        book: found.book,
        state,
        ...(discovered === undefined ? {} : { discovered }),
      });
    };

  app.get<{ Params: BookParams }>('/config/workspaces/:ws/books/:asin/keywords', async (request, reply) => {
    const { ws: id, asin } = request.params;
    const view = await editor.current();
    if (bookOf(view, id, asin) === undefined || view.fileOf(id) !== undefined)
      return notFound(reply, context(request), 'No such book to edit in the current revision.');
    const notice = savedNotice(request.query);
    return reply
      .type(HTML)
      .send(await keywordsRender(request, id, asin)(view, notice === undefined ? {} : { notice }));
  });

  app.post<{ Params: BookParams }>(
    '/config/workspaces/:ws/books/:asin/keywords/discover',
    async (request, reply) => {
      const { ws: id, asin } = request.params;
      const view = await editor.current();
      const found = bookOf(view, id, asin);
      if (found === undefined)
        return notFound(reply, context(request), 'No such book in the current revision.');
      const { values, problems } = readForm(bodyOf(request), [
        { name: 'n', path: `${found.path}.keywords.top` },
      ]);
      const n = Number(text(values, 'n'));
      if (problems.length > 0 || !Number.isSafeInteger(n) || n < 1 || n > 1000) {
        const state = { alert: 'Not asked: N must be a whole number from 1 to 1,000.' };
        return reply
          .code(400)
          .type(HTML)
          .send(await keywordsRender(request, id, asin)(view, state));
      }
      try {
        const client = runtime.interactiveClient(id, LOOKUP_WAIT_MS);
        const answer = await client.getBookKeywords(asin, {
          marketplace: found.book.marketplaces[0],
          signal: AbortSignal.timeout(15_000),
        });
        const top = [...answer.data.data]
          .sort((a, b) => b.traffic_share - a.traffic_share)
          .slice(0, n)
          .map((k) => ({ keyword: k.keyword, trafficShare: k.traffic_share }));
        return reply.type(HTML).send(await keywordsRender(request, id, asin, top)(view, {}));
      } catch (error) {
        const state = {
          alert: `The keywords endpoint did not answer: ${error instanceof Error ? error.message.slice(0, 300) : 'unknown error'}`,
        };
        return reply
          .code(502)
          .type(HTML)
          .send(await keywordsRender(request, id, asin)(view, state));
      }
    },
  );

  app.post<{ Params: BookParams }>('/config/workspaces/:ws/books/:asin/keywords', async (request, reply) => {
    const { ws: id, asin } = request.params;
    const view = await editor.current();
    const path = bookOf(view, id, asin)?.path ?? 'workspaces';
    const { values, problems } = readForm(bodyOf(request), keywordFields(path, undefined));
    return saveEdit(editor, request, reply, {
      form: 'keywords',
      values,
      problems,
      workspace: id,
      summary: `set the keywords of ${asin} in ${id}`,
      edit: (d) => doc.setKeywords(d, id, asin, keywordChoice(values)),
      redirect: `/config/workspaces/${id}/books/${asin}/keywords`,
      render: keywordsRender(request, id, asin),
    });
  });
}
