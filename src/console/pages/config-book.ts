/**
 * Adding a book, step two (what the one lookup request found, then the keywords and "Add book"),
 * and a book's keywords: typed, the top N tracked from the keywords endpoint, or the top N
 * discovered now and kept as a list.
 */
import type { BookConfig } from '../../config/schema.ts';
import { type Field, lines, renderFields } from '../form-kit.ts';
import { html, numberText, type SafeHtml } from '../html.ts';
import { type PageContext, page } from '../layout.ts';
import {
  type ConfigPageState,
  formHead,
  postedFor,
  postedValue,
  stateNotices,
  stringOf,
} from './config-common.ts';
import { MARKETPLACE_OPTIONS } from './config-workspace.ts';

export interface LookedUp {
  title: string;
  author: string;
  bsr: number | null;
  comps: { asin: string; title: string; bsr: number | null }[];
}

type Posted = { values: Record<string, string | string[]> } | undefined;

export function keywordFields(path: string, posted: Posted, current?: BookConfig['keywords']): Field[] {
  const mode = current === undefined ? 'top' : 'list' in current ? 'list' : 'top';
  return [
    {
      name: 'mode',
      label: 'Keywords to track',
      path: `${path}.keywords`,
      type: 'select',
      options: [
        { value: 'top', label: "the top N of the book's own keywords (tracked as they change)" },
        { value: 'list', label: 'the keywords listed below' },
      ],
      value: stringOf(posted, 'mode', mode),
    },
    {
      name: 'top',
      label: 'N (for the top N)',
      path: `${path}.keywords.top`,
      type: 'number',
      value: stringOf(posted, 'top', current !== undefined && 'top' in current ? String(current.top) : '100'),
      hint: '1 to 1,000',
    },
    {
      name: 'list',
      label: 'Keywords (one a line)',
      path: `${path}.keywords`,
      type: 'textarea',
      value: stringOf(
        posted,
        'list',
        current !== undefined && 'list' in current ? current.list.join('\n') : '',
      ),
    },
  ];
}

/** The keyword choice a posted form makes (the schema checks it). */
export function keywordChoice(
  values: Record<string, string | string[]>,
): { list: string[] } | { top: number } {
  const mode = values.mode;
  if (mode === 'list') return { list: lines(typeof values.list === 'string' ? values.list : '') };
  const top = typeof values.top === 'string' ? values.top : '';
  return { top: /^\d{1,6}$/.test(top) ? Number(top) : Number.NaN };
}

function lookedUpCard(found: LookedUp | undefined, failure: string | undefined): SafeHtml {
  if (found === undefined)
    return html`<p class="error" role="alert">The lookup did not answer: ${failure ?? 'unknown error'}. You can still add the book; its title shows after its first poll.</p>`;
  return html`<div class="card"><h3>Found with one request</h3>
<p><strong class="wrap">${found.title}</strong> by <span class="wrap">${found.author}</span>${found.bsr === null ? '' : html` · BSR #${numberText(found.bsr)}`}</p>
${found.comps.length === 0 ? html`<p class="mute">No comps listed.</p>` : html`<p>Comps:</p><ul>${found.comps.map((c) => html`<li class="wrap">${c.title} (${c.asin})${c.bsr === null ? '' : html` · #${numberText(c.bsr)}`}</li>`)}</ul>`}
</div>`;
}

export function addBookStepPage(
  ctx: PageContext,
  input: {
    workspace: string;
    revision: number;
    path: string;
    asin: string;
    marketplaces: string[];
    found?: LookedUp;
    failure?: string;
    state: ConfigPageState;
  },
): string {
  const posted = postedFor(input.state, 'book');
  const fields: Field[] = [
    {
      name: 'author',
      label: 'Author (for routing alerts)',
      path: `${input.path}.author`,
      value: stringOf(posted, 'author', input.found?.author ?? ''),
    },
    {
      name: 'marketplaces',
      label: 'Marketplaces',
      path: `${input.path}.marketplaces`,
      type: 'checkboxes',
      options: MARKETPLACE_OPTIONS,
      value: postedValue(posted, 'marketplaces', input.marketplaces),
    },
    ...keywordFields(input.path, posted),
  ];
  const body = html`${stateNotices(input.state)}
${input.found !== undefined || input.failure !== undefined ? lookedUpCard(input.found, input.failure) : ''}
<form class="config" method="post" action="/config/workspaces/${input.workspace}/books" aria-label="Add book ${input.asin}">${formHead(ctx, input.revision, 'book')}
<input type="hidden" name="asin" value="${input.asin}">
${renderFields(fields, posted?.problems ?? [])}
<div class="actions"><button type="submit">Add book</button> <a href="/config/workspaces/${input.workspace}">Cancel</a></div>
</form>`;
  return page(`Add ${input.asin} to ${input.workspace}`, ctx, body);
}

export function keywordsPage(
  ctx: PageContext,
  input: {
    workspace: string;
    revision: number;
    path: string;
    book: BookConfig;
    discovered?: { keyword: string; trafficShare: number }[];
    state: ConfigPageState;
  },
): string {
  const { book } = input;
  const discovered = input.discovered;
  const posted =
    postedFor(input.state, 'keywords') ??
    (discovered === undefined
      ? undefined
      : { values: { mode: 'list', list: discovered.map((k) => k.keyword).join('\n') }, problems: [] });
  const discover: Field[] = [
    {
      name: 'n',
      label: 'N',
      path: `${input.path}.keywords.top`,
      type: 'number',
      value: '20',
      hint: '1 to 1,000',
    },
  ];
  const body = html`${stateNotices(input.state)}
<p>Now: ${'list' in book.keywords ? `${book.keywords.list.length} keyword(s) listed` : `the top ${book.keywords.top} of the book's keywords`}.</p>
<h2 id="discover">Discover the top N</h2>
<form class="config" method="post" action="/config/workspaces/${input.workspace}/books/${book.asin}/keywords/discover" aria-labelledby="discover">${formHead(ctx, input.revision, 'discover')}
${renderFields(discover, [])}
<p class="hint">Asks the keywords endpoint once (<strong>one request</strong>, more if its answer comes in pages) and fills the list below with the N keywords of the largest traffic share; nothing is saved until you press Save.</p>
<div class="actions"><button type="submit" class="secondary">Discover (1 request)</button></div>
</form>
${discovered === undefined ? '' : html`<p class="notice" role="status">Found ${discovered.length} keyword(s): check the list, then save.</p>`}
<h2 id="edit">Keywords</h2>
<form class="config" method="post" action="/config/workspaces/${input.workspace}/books/${book.asin}/keywords" aria-labelledby="edit">${formHead(ctx, input.revision, 'keywords')}
${renderFields(keywordFields(input.path, posted, book.keywords), posted?.problems ?? [])}
<div class="actions"><button type="submit">Save keywords</button> <a href="/config/workspaces/${input.workspace}">Back</a></div>
</form>`;
  return page(`Keywords of ${book.asin}`, ctx, body);
}
