/**
 * A workspace's configuration page: its books and targets (each with "poll now" and its cost), the
 * add-a-book form (step one: ASIN and marketplaces, looked up with one request), campaigns, sales,
 * cadences with the plan's verdict, and its rules. A file-managed workspace is shown without forms.
 */
import type { WorkspaceConfig } from '../../config/schema.ts';
import { MARKETPLACES } from '../../util/marketplaces.ts';
import { CADENCE_KINDS } from '../config-doc.ts';
import { type Field, renderFields } from '../form-kit.ts';
import { html, numberText, type SafeHtml, timeText } from '../html.ts';
import { type PageContext, page } from '../layout.ts';
import type { PlanPreview } from '../plan-preview.ts';
import {
  type ConfigPageState,
  formHead,
  postedFor,
  postedValue,
  readOnlyBanner,
  revisionLine,
  stateNotices,
  stringOf,
} from './config-common.ts';
import { planSection } from './config-plan.ts';

export interface TargetRow {
  id: string;
  kind: string;
  cost: number;
  lastPollAt: number | null;
  lastOutcome: string | null;
}

export interface WorkspacePageInput {
  revision: number;
  ws: WorkspaceConfig;
  /** Where in the document this workspace is (`workspaces[2]`): problems are matched against it. */
  path: string;
  file: string | undefined;
  targets: TargetRow[];
  plan: PlanPreview;
  /** The plan with the cadences a "Check the plan" posted, before they are saved. */
  candidate?: PlanPreview;
  state: ConfigPageState;
}

export const MARKETPLACE_OPTIONS = MARKETPLACES.map((m) => ({ value: m, label: m }));

export function addBookFields(path: string, posted?: { values: Record<string, string | string[]> }): Field[] {
  return [
    {
      name: 'asin',
      label: 'ASIN',
      path: `${path}.books`,
      value: stringOf(posted, 'asin'),
      hint: '10 letters and digits, e.g. B0CJ4XQ2ZK',
      required: true,
    },
    {
      name: 'marketplaces',
      label: 'Marketplaces',
      path: `${path}.books.marketplaces`,
      type: 'checkboxes',
      options: MARKETPLACE_OPTIONS,
      value: postedValue(posted, 'marketplaces', ['US']),
    },
  ];
}

function targetsSection(ctx: PageContext, input: WorkspacePageInput): SafeHtml {
  const { ws, targets } = input;
  if (targets.length === 0) return html`<p class="mute">Nothing to poll yet.</p>`;
  return html`<ul class="items">${targets.map(
    (
      t,
    ) => html`<li><span class="wrap"><strong>${t.id}</strong></span> · last poll: ${t.lastPollAt === null ? 'never' : timeText(t.lastPollAt)}${t.lastOutcome === null ? '' : ` (${t.lastOutcome})`}
<form class="inline" method="post" action="/config/workspaces/${ws.id}/poll">${formHead(ctx, input.revision, 'poll')}<input type="hidden" name="target" value="${t.id}"><button type="submit" class="secondary" aria-label="Poll ${t.id} now (costs ${t.cost} request${t.cost === 1 ? '' : 's'})">Poll now · ${t.cost} request${t.cost === 1 ? '' : 's'}</button></form></li>`,
  )}</ul>`;
}

function booksSection(ctx: PageContext, input: WorkspacePageInput, editable: boolean): SafeHtml {
  const { ws } = input;
  return html`<ul class="items">${ws.books.map(
    (
      book,
    ) => html`<li><strong>${book.asin}</strong> · ${book.marketplaces.join(', ')}${book.author === undefined ? '' : html` · ${book.author}`} · keywords: ${'list' in book.keywords ? `${book.keywords.list.length} listed` : `the top ${book.keywords.top}`}
${book.marketplaces.map((mp) => html` <a href="/books/${ws.id}/${book.asin}/${mp}">book page (${mp})</a>`)}${
  editable
    ? html` · <a href="/config/workspaces/${ws.id}/books/${book.asin}/keywords">Keywords</a>
<form class="inline" method="post" action="/config/workspaces/${ws.id}/books/${book.asin}/remove">${formHead(ctx, input.revision, 'remove-book')}<button type="submit" class="secondary" aria-label="Stop watching ${book.asin}">Remove</button></form>`
    : ''
}</li>`,
  )}</ul>`;
}

function addBookForm(ctx: PageContext, input: WorkspacePageInput): SafeHtml {
  const posted = postedFor(input.state, 'add-book');
  return html`<h2 id="add-book">Add a book</h2>
<form class="config" method="post" action="/config/workspaces/${input.ws.id}/books/lookup" aria-labelledby="add-book">${formHead(ctx, input.revision, 'add-book')}
${renderFields(addBookFields(input.path, posted), posted?.problems ?? [])}
<p class="hint">Looking the book up (its title, author and comps) costs <strong>one API request</strong> from this workspace's budget; you confirm on the next page.</p>
<div class="actions"><button type="submit">Look up (1 request)</button></div>
</form>`;
}

function campaignsSection(ctx: PageContext, input: WorkspacePageInput, editable: boolean): SafeHtml {
  const { ws } = input;
  const posted = postedFor(input.state, 'campaign');
  const fields: Field[] = [
    {
      name: 'id',
      label: 'Campaign id',
      path: `${input.path}.campaigns`,
      value: stringOf(posted, 'id'),
      required: true,
    },
    {
      name: 'name',
      label: 'Name (what messages call it)',
      path: `${input.path}.campaigns`,
      value: stringOf(posted, 'name'),
    },
  ];
  return html`<h2 id="campaigns">ARC campaigns</h2>
${
  ws.campaigns.length === 0
    ? html`<p class="mute">No campaigns.</p>`
    : html`<ul class="items">${ws.campaigns.map(
        (c) =>
          html`<li class="wrap">${c.name === undefined ? c.id : html`${c.name} <span class="mute">${c.id}</span>`}${
            editable
              ? html` <form class="inline" method="post" action="/config/workspaces/${ws.id}/campaigns/remove">${formHead(ctx, input.revision, 'remove-campaign')}<input type="hidden" name="id" value="${c.id}"><button type="submit" class="secondary" aria-label="Remove campaign ${c.id}">Remove</button></form>`
              : ''
          }</li>`,
      )}</ul>`
}
${editable ? html`<form class="config" method="post" action="/config/workspaces/${ws.id}/campaigns" aria-label="Add a campaign">${formHead(ctx, input.revision, 'campaign')}${renderFields(fields, posted?.problems ?? [])}<div class="actions"><button type="submit">Add campaign</button></div></form>` : ''}`;
}

function salesSection(ctx: PageContext, input: WorkspacePageInput, editable: boolean): SafeHtml {
  const { ws } = input;
  const posted = postedFor(input.state, 'sales');
  const now = ws.sales === false ? 'off' : 'list';
  const fields: Field[] = [
    {
      name: 'sales',
      label: 'Poll sales',
      path: `${input.path}.sales`,
      type: 'select',
      options: [
        { value: 'all', label: "in every book's marketplace" },
        { value: 'list', label: 'in the marketplaces below' },
        { value: 'off', label: 'not at all' },
      ],
      value: stringOf(posted, 'sales', now),
    },
    {
      name: 'marketplaces',
      label: 'Sales marketplaces',
      path: `${input.path}.sales.marketplaces`,
      type: 'checkboxes',
      options: MARKETPLACE_OPTIONS,
      value: postedValue(posted, 'marketplaces', ws.sales === false ? [] : ws.sales.marketplaces),
    },
  ];
  return html`<h2 id="sales">Sales</h2>
<p>${ws.sales === false ? 'Sales are not polled.' : `Sales polled in ${ws.sales.marketplaces.join(', ')}.`}</p>
${editable ? html`<form class="config" method="post" action="/config/workspaces/${ws.id}/sales" aria-labelledby="sales">${formHead(ctx, input.revision, 'sales')}${renderFields(fields, posted?.problems ?? [])}<div class="actions"><button type="submit">Save sales</button></div></form>` : ''}`;
}

export function cadenceFields(
  path: string,
  ws: WorkspaceConfig,
  posted?: { values: Record<string, string | string[]> },
): Field[] {
  return CADENCE_KINDS.map((kind) => ({
    name: kind,
    label: `${kind[0]?.toUpperCase()}${kind.slice(1)} cadence`,
    path: `${path}.cadence.${kind}`,
    value: stringOf(
      posted,
      kind,
      ws.cadence[kind] === undefined ? '' : `${Math.round(ws.cadence[kind] / 1000)}s`,
    ),
    hint: 'e.g. 2h or 30m; empty: the planner chooses',
  }));
}

function cadenceSection(ctx: PageContext, input: WorkspacePageInput, editable: boolean): SafeHtml {
  const posted = postedFor(input.state, 'cadence');
  return html`<h2 id="cadence">Cadences and the plan</h2>
${input.candidate === undefined ? '' : planSection(input.candidate, 'The plan with the cadences you typed (not saved)')}
${planSection(input.plan)}
${
  editable
    ? html`<form class="config" method="post" action="/config/workspaces/${input.ws.id}/cadence" aria-labelledby="cadence">${formHead(ctx, input.revision, 'cadence')}
${renderFields(cadenceFields(input.path, input.ws, posted), posted?.problems ?? [])}
<p class="hint">Check the plan first: the verdict above is redrawn for the cadences you typed, and nothing is saved until you press Save.</p>
<div class="actions"><button type="submit" name="action" value="preview" class="secondary">Check the plan</button><button type="submit" name="action" value="save">Save cadences</button></div></form>`
    : ''
}`;
}

function rulesSection(input: WorkspacePageInput, editable: boolean): SafeHtml {
  const own = input.ws.rules;
  return html`<h2 id="rules">Rules</h2>
<p>${own.length === 0 ? 'This workspace uses the rules of the whole config (and their defaults).' : `${own.length} rule(s) of its own: ${own.map((r) => r.id).join(', ')}.`}</p>
${editable ? html`<p><a href="/config/workspaces/${input.ws.id}/rules">Rule parameters (for the workspace or one book), with their defaults</a></p>` : ''}`;
}

export function workspaceConfigPage(ctx: PageContext, input: WorkspacePageInput): string {
  const editable = input.file === undefined;
  const body = html`${revisionLine(input.revision)}
${input.file === undefined ? '' : readOnlyBanner(input.file)}
${stateNotices(input.state)}
<p>Plan: ${input.ws.plan.name} (${numberText(input.ws.plan.perMinute)} requests a minute, ${numberText(input.ws.plan.perMonth)} a month).</p>
<h2 id="books">Books</h2>
${input.ws.books.length === 0 ? html`<p class="mute">No books.</p>` : booksSection(ctx, input, editable)}
${editable ? addBookForm(ctx, input) : ''}
<h2 id="targets">Targets</h2>
<p class="hint">"Poll now" runs one poll at once, outside the schedule; it spends the requests shown and is refused when the month's or this minute's budget has no room.</p>
${targetsSection(ctx, input)}
${campaignsSection(ctx, input, editable)}
${salesSection(ctx, input, editable)}
${cadenceSection(ctx, input, editable)}
${rulesSection(input, editable)}`;
  return page(`Workspace ${input.ws.id}`, ctx, body);
}
