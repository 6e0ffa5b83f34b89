/**
 * The config forms' kit: reading a posted form (text only, bounded, no control characters) and
 * drawing a field with its label, hint and the schema's problems next to it. A problem belongs to
 * the field whose config path it names (or a path inside it); the rest are shown above the form,
 * so nothing the schema says is lost. Every form works without script: plain POST, server checks.
 */
import type { ConfigProblem } from '../config-kit/problems.ts';
import { BIDI_OVERRIDES } from '../util/bidi.ts';
import { html, type SafeHtml } from './html.ts';

/** A config value is a line or a short list; more is a paste gone wrong (the body limit is 64 KB). */
export const MAX_FIELD_CHARS = 2_000;
const MAX_AREA_CHARS = 20_000;

/** C0 controls but tab and newlines, DEL, C1 controls and the bidi overrides and isolates. */
const CONTROL = new RegExp(`[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F${BIDI_OVERRIDES}]`);

export type FieldType = 'text' | 'number' | 'password' | 'textarea' | 'time' | 'checkboxes' | 'select';

export interface Field {
  /** The form field's name (also its id, prefixed). */
  name: string;
  label: string;
  /** The config path the field edits: problems at it (or inside it) are drawn under the field. */
  path: string;
  type?: FieldType;
  value?: string | readonly string[];
  options?: readonly { value: string; label: string }[];
  hint?: string;
  required?: boolean;
  /** An input that is shown but cannot change (a file-managed workspace). */
  readOnly?: boolean;
  /** Keeps element ids unique where several forms of one page share field names. */
  idPrefix?: string;
}

export type FormValues = Record<string, string | string[]>;

/** A problem of the form itself (not the schema's): same shape, so one renderer draws both. */
export function formProblem(path: string, message: string): ConfigProblem {
  return { path, message };
}

/**
 * The named fields of a posted form, trimmed. A value that is not text, too long, or carries
 * control characters is refused with a problem at its field's path (never echoed back).
 */
export function readForm(
  body: unknown,
  fields: readonly Pick<Field, 'name' | 'path' | 'type'>[],
): { values: FormValues; problems: ConfigProblem[] } {
  const raw = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const values: FormValues = {};
  const problems: ConfigProblem[] = [];
  for (const field of fields) {
    const given = raw[field.name];
    const list = field.type === 'checkboxes';
    const items = given === undefined ? [] : Array.isArray(given) ? given : [given];
    if (!list && items.length > 1) {
      problems.push(formProblem(field.path, 'expected one value, got several'));
      continue;
    }
    const max = field.type === 'textarea' ? MAX_AREA_CHARS : MAX_FIELD_CHARS;
    const bad = items.find((item) => typeof item !== 'string' || item.length > max || CONTROL.test(item));
    if (bad !== undefined) {
      const why =
        typeof bad !== 'string'
          ? 'expected text'
          : bad.length > max
            ? `expected at most ${max.toLocaleString('en-US')} characters, got ${bad.length.toLocaleString('en-US')}`
            : 'expected text without control or bidirectional formatting characters';
      problems.push(formProblem(field.path, why));
      continue;
    }
    const texts = (items as string[]).map((item) => item.trim());
    values[field.name] = list ? texts.filter((t) => t !== '') : (texts[0] ?? '');
  }
  return { values, problems };
}

export function text(values: FormValues, name: string): string {
  const value = values[name];
  return typeof value === 'string' ? value : (value?.[0] ?? '');
}

export function list(values: FormValues, name: string): string[] {
  const value = values[name];
  return Array.isArray(value) ? value : value === undefined || value === '' ? [] : [value];
}

/** Splits a typed list on commas and line breaks (keywords may hold spaces). */
export function lines(value: string): string[] {
  return value
    .split(/[\n,]/)
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function inside(problemPath: string, fieldPath: string): boolean {
  return (
    problemPath === fieldPath ||
    problemPath.startsWith(`${fieldPath}.`) ||
    problemPath.startsWith(`${fieldPath}[`)
  );
}

/** Problems at or inside this path. */
export function problemsAt(problems: readonly ConfigProblem[], path: string): ConfigProblem[] {
  return problems.filter((problem) => inside(problem.path, path));
}

/** Problems that no field of the form claims: shown above it. */
export function unclaimed(problems: readonly ConfigProblem[], fields: readonly Field[]): ConfigProblem[] {
  return problems.filter((problem) => !fields.some((field) => inside(problem.path, field.path)));
}

function problemLine(problem: ConfigProblem): SafeHtml {
  return html`<strong>${problem.path}</strong>: ${problem.message}${problem.hint === undefined ? '' : html` <span class="hint">(${problem.hint})</span>`}`;
}

/** The problems above a form (whole-form problems, a conflict, a refusal). */
export function formErrors(problems: readonly ConfigProblem[]): SafeHtml {
  if (problems.length === 0) return html``;
  return html`<div class="error" role="alert"><p>Not saved:</p><ul>${problems.map(
    (problem) => html`<li>${problemLine(problem)}</li>`,
  )}</ul></div>`;
}

const idOf = (name: string) => `f-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;

function has(value: Field['value'], option: string): boolean {
  return Array.isArray(value) ? value.includes(option) : value === option;
}

/** A field with its label, hint and its problems, tied together for screen readers. */
export function renderField(field: Field, problems: readonly ConfigProblem[] = []): SafeHtml {
  const id = idOf(`${field.idPrefix ?? ''}${field.name}`);
  const own = problemsAt(problems, field.path);
  const described = [
    ...(field.hint === undefined ? [] : [`${id}-hint`]),
    ...(own.length === 0 ? [] : [`${id}-error`]),
  ].join(' ');
  const aria = html`${described === '' ? '' : html` aria-describedby="${described}"`}${own.length > 0 ? html` aria-invalid="true"` : ''}${field.required === true ? html` required` : ''}${field.readOnly === true ? html` disabled` : ''}`;
  const hint = field.hint === undefined ? '' : html`<span id="${id}-hint" class="hint">${field.hint}</span>`;
  const errors =
    own.length === 0
      ? ''
      : html`<span id="${id}-error" class="field-error">${own.map((p) => html`<span>${problemLine(p)}</span> `)}</span>`;
  const value = typeof field.value === 'string' ? field.value : '';
  if (field.type === 'checkboxes') {
    return html`<fieldset class="field choices"${own.length > 0 ? html` aria-invalid="true"` : ''}><legend>${field.label}</legend>${(
      field.options ?? []
    ).map(
      (option) =>
        html`<label class="choice"><input type="checkbox" name="${field.name}" value="${option.value}"${has(field.value, option.value) ? html` checked` : ''}${field.readOnly === true ? html` disabled` : ''}> ${option.label}</label>`,
    )}${hint}${errors}</fieldset>`;
  }
  let control: SafeHtml;
  if (field.type === 'select') {
    control = html`<select id="${id}" name="${field.name}"${aria}>${(field.options ?? []).map(
      (option) =>
        html`<option value="${option.value}"${has(field.value, option.value) ? html` selected` : ''}>${option.label}</option>`,
    )}</select>`;
  } else if (field.type === 'textarea') {
    control = html`<textarea id="${id}" name="${field.name}" rows="5"${aria}>${value}</textarea>`;
  } else {
    const type = field.type ?? 'text';
    // A secret is never sent back to the browser: the field is always empty.
    const shown = type === 'password' ? '' : value;
    control = html`<input id="${id}" name="${field.name}" type="${type}" value="${shown}"${type === 'password' ? html` autocomplete="off"` : ''}${aria}>`;
  }
  return html`<div class="field"><label for="${id}">${field.label}</label>${control}${hint}${errors}</div>`;
}

/** Fields, the problems no field claims above them. */
export function renderFields(fields: readonly Field[], problems: readonly ConfigProblem[]): SafeHtml {
  return html`${formErrors(unclaimed(problems, fields))}${fields.map((field) => renderField(field, problems))}`;
}
