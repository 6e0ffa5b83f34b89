import { z } from 'zod';
import { asinSchema } from '../../api/index.ts';
import {
  type AlertLog,
  type AlertLogEntry,
  type AlertLogPage,
  DELIVERY_OUTCOMES,
} from '../../history/alert-log.ts';
import { ALERT_KINDS } from '../../model/alert.ts';
import { SEVERITIES } from '../../silence/silence.ts';
import { html, type SafeHtml, timeText } from '../html.ts';
import { fieldErrors, type PageContext, page } from '../layout.ts';

const PAGE_SIZE = 100;
const id = z.string().regex(/^[a-z0-9-]{1,64}$/, 'expected an id of a-z, 0-9 and -');

/** The alert list's filters, from the query string; anything else is refused with its field. */
export const alertFilterSchema = z.strictObject({
  workspace: id.optional(),
  asin: asinSchema.optional(),
  kind: z.enum(ALERT_KINDS).optional(),
  severity: z.enum(SEVERITIES as [string, ...string[]]).optional(),
  channel: id.optional(),
  outcome: z.enum(DELIVERY_OUTCOMES as [string, ...string[]]).optional(),
  before: z.coerce.number().int().positive().optional(),
});

export type AlertFilter = z.output<typeof alertFilterSchema>;

export type Problems = { field: string; reason: string }[];

/** Empty fields of a GET form mean "any". */
function present(query: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(query).filter(([, v]) => v !== '' && v !== undefined));
}

export function parseAlertFilter(
  query: Record<string, unknown>,
): { filter: AlertFilter } | { problems: Problems } {
  const parsed = alertFilterSchema.safeParse(present(query));
  if (parsed.success) return { filter: parsed.data };
  return {
    problems: parsed.error.issues.map((issue) => ({
      field:
        issue.path.length > 0 ? issue.path.join('.') : ((issue as { keys?: string[] }).keys ?? []).join(', '),
      reason: issue.message,
    })),
  };
}

export function matchesFilter(filter: AlertFilter): (entry: AlertLogEntry) => boolean {
  return (e) =>
    (filter.workspace === undefined || e.workspace === filter.workspace) &&
    (filter.asin === undefined || e.asin === filter.asin) &&
    (filter.kind === undefined || e.kind === filter.kind) &&
    (filter.severity === undefined || e.severity === filter.severity) &&
    (filter.channel === undefined || e.deliveries[filter.channel] !== undefined) &&
    (filter.outcome === undefined ||
      Object.entries(e.deliveries).some(
        ([channel, outcome]) =>
          outcome === filter.outcome && (filter.channel === undefined || channel === filter.channel),
      ));
}

export async function queryAlerts(log: AlertLog, filter: AlertFilter) {
  return log.query({
    keep: matchesFilter(filter),
    limit: PAGE_SIZE,
    ...(filter.asin === undefined ? {} : { asin: filter.asin }),
    ...(filter.before === undefined ? {} : { beforeMs: filter.before }),
  });
}

export function deliveriesCell(e: AlertLogEntry): SafeHtml {
  return html`${Object.entries(e.deliveries).map(
    ([channel, outcome]) => html`<span class="pill ${outcome}">${channel}: ${outcome}</span> `,
  )}`;
}

/** The book by its title first (when the alert knew it), its ASIN and marketplace after it. */
function bookCell(e: AlertLogEntry): SafeHtml {
  if (e.asin === undefined) return html`—`;
  const where = `${e.asin}${e.marketplace === undefined ? '' : ` ${e.marketplace}`}`;
  const label =
    e.bookTitle === undefined ? html`${where}` : html`${e.bookTitle} <span class="mute">${where}</span>`;
  if (e.marketplace === undefined) return label;
  return html`<a href="/books/${e.workspace}/${e.asin}/${e.marketplace}">${label}</a>`;
}

export function alertRows(entries: readonly AlertLogEntry[]): SafeHtml {
  return html`<table><thead><tr><th scope="col">Observed</th><th scope="col">Severity</th><th scope="col">Kind</th><th scope="col">Alert</th><th scope="col">Book</th><th scope="col">Deliveries</th></tr></thead>
<tbody>${entries.map(
    (
      e,
    ) => html`<tr><td>${timeText(e.observedAt)}</td><td><span class="pill ${e.severity}">${e.severity}</span></td><td>${e.kind}</td>
<td class="text"><a href="/alerts/${encodeURIComponent(e.fingerprint)}">${e.title}</a></td>
<td>${bookCell(e)}</td>
<td>${deliveriesCell(e)}</td></tr>`,
  )}</tbody></table>`;
}

function select(
  name: string,
  label: string,
  options: readonly string[],
  value: string | undefined,
): SafeHtml {
  return html`<label>${label}<select name="${name}"><option value="">any</option>${options.map(
    (o) => html`<option${o === value ? html` selected` : ''}>${o}</option>`,
  )}</select></label>`;
}

export function alertsPage(
  ctx: PageContext,
  input: {
    filter: Partial<AlertFilter>;
    problems: Problems;
    result?: AlertLogPage;
    workspaces: readonly string[];
    channels: readonly string[];
  },
): string {
  const { filter, result } = input;
  const next = new URLSearchParams(
    Object.entries({ ...filter, before: result?.nextBeforeMs }).flatMap(([k, v]): [string, string][] =>
      v === undefined ? [] : [[k, String(v)]],
    ),
  );
  const body = html`<form class="filters" method="get" action="/alerts" aria-label="Filter alerts">
${select('workspace', 'Workspace', input.workspaces, filter.workspace)}
<label>Book (ASIN)<input name="asin" value="${filter.asin ?? ''}" size="12" pattern="[A-Z0-9]{10}"></label>
${select('kind', 'Kind', ALERT_KINDS, filter.kind)}
${select('severity', 'Severity', SEVERITIES, filter.severity)}
${select('channel', 'Channel', input.channels, filter.channel)}
${select('outcome', 'Outcome', DELIVERY_OUTCOMES, filter.outcome)}
<button type="submit">Filter</button> <a href="/alerts">Clear</a>
</form>
${fieldErrors(input.problems)}
${
  result === undefined
    ? ''
    : html`${result.entries.length === 0 ? html`<p>No alerts match.</p>` : alertRows(result.entries)}
${
  result.nextBeforeMs !== undefined
    ? html`<p><a href="/alerts?${next.toString()}" rel="next">Older alerts</a>${
        result.entries.length < PAGE_SIZE
          ? html` <span class="mute">(${result.scanned} entries searched; the rest of the log is on the next page)</span>`
          : ''
      }</p>`
    : ''
}`
}`;
  return page('Alerts', ctx, body);
}

export function alertPage(ctx: PageContext, e: AlertLogEntry): string {
  const body = html`<table><tbody>
<tr><th scope="row">Title</th><td class="text">${e.title}</td></tr>
<tr><th scope="row">Observed</th><td>${timeText(e.observedAt)}</td></tr>
<tr><th scope="row">Workspace</th><td>${e.workspace}</td></tr>
<tr><th scope="row">Rule</th><td>${e.ruleId} (${e.kind}, ${e.status})</td></tr>
<tr><th scope="row">Severity</th><td><span class="pill ${e.severity}">${e.severity}</span></td></tr>
<tr><th scope="row">Book</th><td class="text">${bookCell(e)}</td></tr>
<tr><th scope="row">Keyword</th><td class="text">${e.keyword ?? '—'}</td></tr>
</tbody></table>
<h2>Deliveries</h2>
<table><thead><tr><th scope="col">Channel</th><th scope="col">Outcome</th></tr></thead><tbody>${Object.entries(
    e.deliveries,
  ).map(
    ([channel, outcome]) =>
      html`<tr><td>${channel}</td><td><span class="pill ${outcome}">${outcome}</span></td></tr>`,
  )}</tbody></table>`;
  return page('Alert', ctx, body);
}
