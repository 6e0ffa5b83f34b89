import { isAsin } from '../../api/index.ts';
import type { ShelfwatchConfig } from '../../config/schema.ts';
import { ALERT_KINDS, type AlertKind, type Severity } from '../../model/alert.ts';
import { SEVERITIES, type SilenceMatchers } from '../../silence/silence.ts';
import type { NewSilence } from '../../silence/store.ts';
import { describeMatchers, type SilenceView } from '../../silence/view.ts';
import { parseDuration } from '../../util/duration.ts';
import { DAY_MS } from '../../util/time-units.ts';
import { html, timeText } from '../html.ts';
import { csrfField, fieldErrors, type PageContext, page } from '../layout.ts';
import type { Problems } from './alerts.ts';

/** The longest a silence set from the console may last: a forgotten one would hide alerts for good. */
const MAX_SILENCE_MS = 90 * DAY_MS;

export type SilenceForm = Partial<
  Record<
    'workspace' | 'asin' | 'author' | 'keyword' | 'kind' | 'severity' | 'rule' | 'duration' | 'reason',
    string
  >
>;

function text(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

function list(value: string | undefined): string[] {
  return value === undefined ? [] : value.split(/[\s,]+/).filter((v) => v !== '');
}

/**
 * The add form, checked field by field with the same rules as `silence add` (known workspace,
 * ASIN shape, a configured author, known kinds and severities); the store's own check follows.
 */
export function parseSilenceForm(
  body: Record<string, unknown>,
  config: ShelfwatchConfig,
  nowMs: number,
  createdBy: string,
): { silence: NewSilence } | { problems: Problems; form: SilenceForm } {
  const form: SilenceForm = {};
  for (const name of [
    'workspace',
    'asin',
    'author',
    'keyword',
    'kind',
    'severity',
    'rule',
    'duration',
    'reason',
  ] as const) {
    const value = text(body, name);
    if (value !== undefined) form[name] = value.slice(0, 500);
  }
  const problems: Problems = [];
  const matchers: SilenceMatchers = {};
  if (form.workspace !== undefined) {
    if (config.workspaces.some((ws) => ws.id === form.workspace)) matchers.workspace = form.workspace;
    else problems.push({ field: 'workspace', reason: `no workspace "${form.workspace}" in the config` });
  }
  const asins = list(form.asin);
  const badAsin = asins.find((a) => !isAsin(a));
  if (badAsin !== undefined)
    problems.push({ field: 'asin', reason: `"${badAsin}" is not an ASIN (10 characters A-Z or 0-9)` });
  else if (asins.length > 0) matchers.asin = asins;
  if (form.author !== undefined) {
    const authors = config.workspaces.flatMap((ws) => ws.books.flatMap((b) => b.author ?? []));
    if (authors.includes(form.author)) matchers.author = form.author;
    else problems.push({ field: 'author', reason: `no configured book has the author "${form.author}"` });
  }
  if (form.keyword !== undefined) matchers.keyword = form.keyword;
  if (form.rule !== undefined) matchers.rule = form.rule;
  const kinds = list(form.kind);
  const badKind = kinds.find((k) => !(ALERT_KINDS as readonly string[]).includes(k));
  if (badKind !== undefined) problems.push({ field: 'kind', reason: `unknown alert kind "${badKind}"` });
  else if (kinds.length > 0) matchers.kind = kinds as AlertKind[];
  const severities = list(form.severity);
  const badSeverity = severities.find((s) => !(SEVERITIES as readonly string[]).includes(s));
  if (badSeverity !== undefined)
    problems.push({ field: 'severity', reason: `unknown severity "${badSeverity}"` });
  else if (severities.length > 0) matchers.severity = severities as Severity[];
  const ms = form.duration === undefined ? undefined : parseDuration(form.duration);
  if (ms === undefined || ms <= 0)
    problems.push({ field: 'duration', reason: 'expected a duration such as 48h, 3d or 90m' });
  else if (ms > MAX_SILENCE_MS) problems.push({ field: 'duration', reason: 'at most 90d' });
  if (form.reason === undefined)
    problems.push({ field: 'reason', reason: 'say why (it is shown with every alert it keeps)' });
  if (problems.length === 0 && Object.keys(matchers).length === 0)
    problems.push({
      field: 'matchers',
      reason: 'give at least one matcher: a silence without would mute every alert',
    });
  if (problems.length > 0 || ms === undefined || form.reason === undefined) return { problems, form };
  return { silence: { matchers, startsAt: nowMs, endsAt: nowMs + ms, reason: form.reason, createdBy } };
}

export function silencesPage(
  ctx: PageContext,
  input: {
    views: readonly SilenceView[];
    problems?: Problems;
    form?: SilenceForm;
    notice?: string;
    workspaces: readonly string[];
  },
): string {
  const form = input.form ?? {};
  const field = (name: keyof SilenceForm, label: string, hint: string) =>
    html`<div class="field"><label for="f-${name}">${label}</label><input id="f-${name}" name="${name}" value="${form[name] ?? ''}" aria-describedby="hint-${name}"><span id="hint-${name}" class="hint">${hint}</span></div>`;
  const body = html`${input.notice === undefined ? '' : html`<p class="notice" role="status">${input.notice}</p>`}
<h2 id="add">Add a silence</h2>
${fieldErrors(input.problems ?? [])}
<form class="add" method="post" action="/silences" aria-labelledby="add">${csrfField(ctx)}
${field('workspace', 'Workspace', input.workspaces.join(', '))}
${field('asin', 'Books (ASINs)', 'comma-separated')}
${field('author', 'Author', 'as configured')}
${field('keyword', 'Keyword', 'any case')}
${field('kind', 'Kinds', 'e.g. keyword_rank_drop')}
${field('severity', 'Severities', 'info, warning, critical')}
${field('rule', 'Rule id', '')}
${field('duration', 'For', 'e.g. 48h, 3d (required)')}
${field('reason', 'Reason', 'required')}
<button type="submit">Add silence</button>
</form>
<h2>Silences</h2>
${
  input.views.length === 0
    ? html`<p class="mute">No silences.</p>`
    : html`<table><thead><tr><th scope="col">Matchers</th><th scope="col">State</th><th scope="col">Starts</th><th scope="col">Ends</th><th scope="col">Reason</th><th scope="col">By</th><th scope="col">Kept</th><th scope="col"><span class="mute">Action</span></th></tr></thead>
<tbody>${input.views.map(
        (
          s,
        ) => html`<tr><td class="text">${describeMatchers(s.matchers, s.bookTitles)}</td><td><span class="pill ${s.state}">${s.state}</span></td><td>${timeText(s.startsAt)}</td><td>${timeText(s.endsAt)}</td>
<td class="text">${s.reason}</td><td>${s.createdBy}</td><td>${s.silenced}</td>
<td>${s.state === 'expired' ? '' : html`<form class="inline" method="post" action="/silences/${s.id}/expire">${csrfField(ctx)}<button class="secondary" type="submit" aria-label="Expire silence: ${describeMatchers(s.matchers, s.bookTitles)}">Expire</button></form>`}</td></tr>`,
      )}</tbody></table>`
}`;
  return page('Silences', ctx, body);
}
