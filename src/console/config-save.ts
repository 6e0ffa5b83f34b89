/**
 * The one way a config form saves: the edit applied to the current revision's document, stored
 * as a new revision based on the revision the form was drawn from. Problems go back to the form
 * (400), a conflict is shown with the newer revision (409), a file-managed workspace refuses (409).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ConfigProblem } from '../config-kit/problems.ts';
import { type Edited, MissingEntry } from './config-doc.ts';
import type { ConfigDocument, ConfigEditor, EditableRevision } from './config-editor.ts';
import type { FormValues } from './form-kit.ts';
import type { ConfigPageState } from './pages/config-common.ts';

export const HTML = 'text/html; charset=utf-8';

export type Body = Record<string, unknown>;

export function bodyOf(request: FastifyRequest): Body {
  const body = request.body;
  return typeof body === 'object' && body !== null ? (body as Body) : {};
}

/** The revision a form was drawn from (its hidden `rev`), or NaN. */
export function basedOnOf(request: FastifyRequest): number {
  const rev = bodyOf(request).rev;
  return typeof rev === 'string' && /^\d{1,12}$/.test(rev) ? Number(rev) : Number.NaN;
}

export function userOf(request: FastifyRequest): string {
  return request.session?.subject ?? 'console';
}

/** `?saved=N` after a save: the notice the page shows. */
export function savedNotice(query: unknown): string | undefined {
  const saved = (query as Record<string, unknown> | undefined)?.saved;
  return typeof saved === 'string' && /^\d{1,12}$/.test(saved) ? `Saved as revision ${saved}.` : undefined;
}

export interface SaveArgs {
  form: string;
  values: FormValues;
  /** Problems the form found before the schema (bad characters, a missing choice). */
  problems?: ConfigProblem[];
  /** The workspace the edit touches (a file-managed one refuses it). */
  workspace?: string;
  summary: string;
  edit: (document: ConfigDocument) => Edited;
  /** Where to go after a save (`?saved=N` is added). */
  redirect: string;
  /** Draws the form's page again from `view` with the refusal. */
  render: (view: EditableRevision, state: ConfigPageState) => Promise<string>;
}

export async function saveEdit(
  editor: ConfigEditor,
  request: FastifyRequest,
  reply: FastifyReply,
  args: SaveArgs,
): Promise<FastifyReply> {
  const view = await editor.current();
  const again = async (code: number, state: ConfigPageState) =>
    reply
      .code(code)
      .type(HTML)
      .send(await args.render(view, state));
  const posted = (problems: ConfigProblem[]) => ({ form: args.form, values: args.values, problems });
  if (args.workspace !== undefined) {
    const file = view.fileOf(args.workspace);
    if (file !== undefined)
      return again(409, {
        alert: `Not saved: workspace "${args.workspace}" is managed by the file ${file}.`,
      });
  }
  if (args.problems !== undefined && args.problems.length > 0)
    return again(400, { posted: posted(args.problems) });
  const basedOn = basedOnOf(request);
  if (Number.isNaN(basedOn))
    return again(400, {
      alert: 'Not saved: the form did not say which revision it was drawn from. Reload the page.',
    });
  let edited: Edited;
  try {
    edited = args.edit(view.document);
  } catch (error) {
    if (error instanceof MissingEntry) return again(409, { alert: `Not saved: ${error.message}.` });
    throw error;
  }
  const result = await editor.save(edited.document, {
    basedOn,
    by: userOf(request),
    from: request.ip,
    summary: args.summary,
  });
  if (result.ok) {
    const join = args.redirect.includes('?') ? '&' : '?';
    return reply.redirect(`${args.redirect}${join}saved=${result.revision}`, 303);
  }
  if ('conflict' in result) {
    const { basedOn: was, current } = result.conflict;
    const newer = await editor.current();
    return reply
      .code(409)
      .type(HTML)
      .send(
        await args.render(newer, {
          alert: `Not saved: this form was drawn from revision ${was}, but revision ${current} has been saved since. The form below is drawn from revision ${current} with your values: check it and save again.`,
          posted: posted([]),
        }),
      );
  }
  return again(400, { posted: posted(result.problems) });
}
