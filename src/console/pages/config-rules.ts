/**
 * Rule parameters of a workspace, or of one of its books (a rule with `books: [ASIN]`), with each
 * parameter's default beside it. Only plain values (numbers, durations, switches, words) have
 * fields; a rule of another shape is written in the config file. Durations are shown and typed as
 * the file spells them ("15m", "2h", "7d"); a bare number there is milliseconds, as in the file.
 */
import { type RuleConfig, ruleSchema } from '../../rules/config.ts';
import { formatDuration } from '../../util/duration.ts';
import { type Field, renderFields } from '../form-kit.ts';
import { html, type SafeHtml } from '../html.ts';
import { type PageContext, page } from '../layout.ts';
import {
  type ConfigPageState,
  formHead,
  postedFor,
  readOnlyBanner,
  revisionLine,
  stateNotices,
  stringOf,
} from './config-common.ts';

/** Keys every rule has, set by the form's own fields rather than as parameters. */
const FIXED = new Set(['id', 'kind', 'books', 'marketplaces']);

export type Scalar = string | number | boolean;

/** The rule's parameters that a text field can hold. */
export function ruleParams(rule: RuleConfig): [string, Scalar][] {
  return Object.entries(rule).filter(
    (entry): entry is [string, Scalar] =>
      !FIXED.has(entry[0]) && ['string', 'number', 'boolean'].includes(typeof entry[1]),
  );
}

/** Text from a field as the config would spell it: a number, true/false, or the text (a duration "6h"). */
export function paramValue(text: string): Scalar {
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  if (text === 'true' || text === 'false') return text === 'true';
  return text;
}

const DURATIONS = new Map<string, ReadonlySet<string>>();

/**
 * The parameters of `rule` that are durations. The parsed rule holds them as milliseconds, like any
 * number: the schema tells them apart, reading "90s" there as 90,000 (once per kind).
 */
export function durationParams(rule: RuleConfig): ReadonlySet<string> {
  const known = DURATIONS.get(rule.kind);
  if (known !== undefined) return known;
  const found = new Set<string>();
  for (const [key, value] of ruleParams(rule)) {
    if (typeof value !== 'number') continue;
    const probe = ruleSchema.safeParse({ ...rule, [key]: '90s' });
    if (probe.success && (probe.data as Record<string, unknown>)[key] === 90_000) found.add(key);
  }
  DURATIONS.set(rule.kind, found);
  return found;
}

/** A parameter as the config file would spell it: "7d" for a duration, else its text. */
function shownParam(rule: RuleConfig, key: string, value: Scalar): string {
  return typeof value === 'number' && durationParams(rule).has(key)
    ? formatDuration(value).replaceAll(' ', '')
    : String(value);
}

export function ruleFields(
  path: string,
  defaults: RuleConfig,
  books: readonly string[],
  posted?: { values: Record<string, string | string[]> },
): Field[] {
  return [
    {
      name: 'id',
      label: 'Rule id',
      path: `${path}.id`,
      value: stringOf(posted, 'id', `${defaults.id}-custom`),
      hint: 'letters, digits, "_", "." or "-"',
    },
    {
      name: 'scope',
      label: 'Applies to',
      path: `${path}.books`,
      type: 'select',
      options: [
        { value: '', label: 'every book of the workspace' },
        ...books.map((b) => ({ value: b, label: `only ${b}` })),
      ],
      value: stringOf(posted, 'scope'),
    },
    ...ruleParams(defaults).map(([key, value]): Field => {
      const shown = shownParam(defaults, key, value);
      return {
        name: `p.${key}`,
        label: key,
        path: `${path}.${key}`,
        value: stringOf(posted, `p.${key}`, shown),
        hint: durationParams(defaults).has(key)
          ? `default: ${shown}; a duration such as 15m, 2h or 1h30m`
          : `default: ${shown}`,
      };
    }),
  ];
}

function ruleLine(rule: RuleConfig): SafeHtml {
  const books = 'books' in rule ? rule.books : undefined;
  const scope = books === undefined ? 'every book' : books.join(', ');
  return html`<strong>${rule.id}</strong> (${rule.kind}, ${scope}): ${ruleParams(rule)
    .map(([k, v]) => `${k} ${shownParam(rule, k, v)}`)
    .join(', ')}`;
}

export interface RulesPageInput {
  workspace: string;
  revision: number;
  path: string;
  file: string | undefined;
  /** Rules of the whole config (or the defaults) and the workspace's own. */
  shared: readonly RuleConfig[];
  own: readonly RuleConfig[];
  defaults: readonly RuleConfig[];
  books: readonly string[];
  kind: string | undefined;
  state: ConfigPageState;
}

export function rulesPage(ctx: PageContext, input: RulesPageInput): string {
  const editable = input.file === undefined;
  const chosen = input.defaults.find((r) => r.kind === input.kind);
  const posted = postedFor(input.state, 'rule');
  const body = html`${revisionLine(input.revision)}${input.file === undefined ? '' : readOnlyBanner(input.file)}${stateNotices(input.state)}
<h2>Rules of every workspace</h2>
<ul class="items">${input.shared.map((r) => html`<li class="wrap">${ruleLine(r)}</li>`)}</ul>
<h2>This workspace's own rules</h2>
${
  input.own.length === 0
    ? html`<p class="mute">None.</p>`
    : html`<ul class="items">${input.own.map(
        (r) =>
          html`<li class="wrap">${ruleLine(r)}${
            editable
              ? html` <form class="inline" method="post" action="/config/workspaces/${input.workspace}/rules/remove">${formHead(ctx, input.revision, 'remove-rule')}<input type="hidden" name="id" value="${r.id}"><button type="submit" class="secondary" aria-label="Remove rule ${r.id}">Remove</button></form>`
              : ''
          }</li>`,
      )}</ul>`
}
${
  editable
    ? html`<h2 id="add-rule">Add a rule</h2>
<form class="config" method="get" action="/config/workspaces/${input.workspace}/rules" aria-label="Choose the kind of rule">
${renderFields([{ name: 'kind', label: 'Kind', path: 'kind', type: 'select', options: input.defaults.map((r) => ({ value: r.kind, label: r.kind })), value: input.kind ?? '' }], [])}
<div class="actions"><button type="submit" class="secondary">Show its parameters</button></div></form>
${
  chosen === undefined
    ? ''
    : html`<form class="config" method="post" action="/config/workspaces/${input.workspace}/rules" aria-labelledby="add-rule">${formHead(ctx, input.revision, 'rule')}<input type="hidden" name="kind" value="${chosen.kind}">
<p>A <strong>${chosen.kind}</strong> rule; each field starts at its default.</p>
${renderFields(ruleFields(`${input.path}.rules[${input.own.length}]`, chosen, input.books, posted), posted?.problems ?? [])}
<div class="actions"><button type="submit">Add rule</button></div></form>`
}`
    : ''
}`;
  return page(`Rules of ${input.workspace}`, ctx, body);
}
