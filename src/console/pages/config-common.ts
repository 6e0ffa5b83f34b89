/** Pieces every config page shares: the revision a form is based on, notices, the read-only banner. */
import type { ConfigProblem } from '../../config-kit/problems.ts';
import type { FormValues } from '../form-kit.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField, type PageContext } from '../layout.ts';

/** The form that was posted and refused: its values come back with the schema's problems. */
export interface PostedForm {
  form: string;
  values: FormValues;
  problems: ConfigProblem[];
}

export interface ConfigPageState {
  notice?: string;
  /** Shown above everything: a conflict, a refused poll. */
  alert?: string;
  posted?: PostedForm;
}

/** The posted values of `form` when it was the one refused, else the defaults. */
export function postedFor(
  state: ConfigPageState,
  form: string,
): { values: FormValues; problems: ConfigProblem[] } | undefined {
  return state.posted?.form === form ? state.posted : undefined;
}

export function postedValue(
  posted: { values: FormValues } | undefined,
  name: string,
  fallback: string | readonly string[] = '',
): string | readonly string[] {
  return posted?.values[name] ?? fallback;
}

export function stringOf(posted: { values: FormValues } | undefined, name: string, fallback = ''): string {
  const value = posted?.values[name];
  return typeof value === 'string' ? value : fallback;
}

/** The CSRF token and the revision the form was drawn from (the save is conditional on it). */
export function formHead(ctx: PageContext, revision: number, form: string): SafeHtml {
  return html`${csrfField(ctx)}<input type="hidden" name="rev" value="${revision}"><input type="hidden" name="form" value="${form}">`;
}

export function stateNotices(state: ConfigPageState): SafeHtml {
  return html`${state.alert === undefined ? '' : html`<p class="error" role="alert">${state.alert}</p>`}${
    state.notice === undefined ? '' : html`<p class="notice" role="status">${state.notice}</p>`
  }`;
}

export function readOnlyBanner(file: string): SafeHtml {
  return html`<p class="readonly" role="note">This workspace is managed by the file <code class="wrap">${file}</code>: it is shown read-only here. Change the file (or <code>shelfwatch config apply --take-over</code>) to edit it.</p>`;
}

export function revisionLine(revision: number): SafeHtml {
  return html`<p class="mute">Configuration revision <strong>${revision}</strong>. Each save below stores a new revision; <code>shelfwatch config history</code> lists them.</p>`;
}
