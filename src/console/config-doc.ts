/**
 * Changes the console's forms make to a config document: each takes the revision's document and
 * returns a changed copy plus the config path of what it touched (the forms put the schema's
 * problems at that path next to their fields). Nothing is checked here: the schema checks the whole
 * document when the revision is saved, exactly as it checks a file.
 */
import type { ConfigDocument } from './config-editor.ts';

type Obj = Record<string, unknown>;

const isObj = (value: unknown): value is Obj =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A deep copy of the plain data of a document (revisions are JSON). */
export function copyDocument(document: ConfigDocument): ConfigDocument {
  return JSON.parse(JSON.stringify(document)) as ConfigDocument;
}

/** `obj[key]` as a list, created (empty) when absent. */
function listAt(obj: Obj, key: string): unknown[] {
  const value = obj[key];
  if (Array.isArray(value)) return value;
  const created: unknown[] = [];
  obj[key] = created;
  return created;
}

function objAt(obj: Obj, key: string): Obj {
  const value = obj[key];
  if (isObj(value)) return value;
  const created: Obj = {};
  obj[key] = created;
  return created;
}

export function workspaceIndex(document: ConfigDocument, id: string): number {
  const list = Array.isArray(document.workspaces) ? document.workspaces : [];
  return list.findIndex((ws) => isObj(ws) && ws.id === id);
}

export function channelIndex(document: ConfigDocument, id: string): number {
  const list = Array.isArray(document.channels) ? document.channels : [];
  return list.findIndex((channel) => isObj(channel) && channel.id === id);
}

export interface Edited {
  document: ConfigDocument;
  /** Where the change is, e.g. `workspaces[0].books[2]`. */
  path: string;
}

class MissingEntry extends Error {
  override readonly name = 'MissingEntry';
}

export { MissingEntry };

function workspaceOfDoc(document: ConfigDocument, id: string): { ws: Obj; path: string } {
  const index = workspaceIndex(document, id);
  const ws = (document.workspaces as unknown[] | undefined)?.[index];
  if (index < 0 || !isObj(ws)) throw new MissingEntry(`no workspace "${id}" in the current revision`);
  return { ws, path: `workspaces[${index}]` };
}

/** Edits the workspace `id` of a copy of the document. */
export function editWorkspace(
  document: ConfigDocument,
  id: string,
  edit: (ws: Obj, path: string) => string,
): Edited {
  const copy = copyDocument(document);
  const { ws, path } = workspaceOfDoc(copy, id);
  return { document: copy, path: edit(ws, path) };
}

export type KeywordChoice = { list: string[] } | { top: number };

function keywordsValue(choice: KeywordChoice): unknown {
  return 'list' in choice ? choice.list : { top: choice.top };
}

export function addBook(
  document: ConfigDocument,
  workspace: string,
  book: { asin: string; marketplaces: string[]; author?: string; keywords?: KeywordChoice },
): Edited {
  return editWorkspace(document, workspace, (ws, path) => {
    const books = listAt(ws, 'books');
    books.push({
      asin: book.asin,
      marketplaces: book.marketplaces,
      ...(book.author === undefined || book.author === '' ? {} : { author: book.author }),
      ...(book.keywords === undefined ? {} : { keywords: keywordsValue(book.keywords) }),
    });
    return `${path}.books[${books.length - 1}]`;
  });
}

function bookIndex(ws: Obj, asin: string): number {
  return listAt(ws, 'books').findIndex((book) => isObj(book) && book.asin === asin);
}

export function hasBook(document: ConfigDocument, workspace: string, asin: string): boolean {
  const index = workspaceIndex(document, workspace);
  const ws = (document.workspaces as unknown[] | undefined)?.[index];
  return isObj(ws) && Array.isArray(ws.books) && ws.books.some((b) => isObj(b) && b.asin === asin);
}

export function setKeywords(
  document: ConfigDocument,
  workspace: string,
  asin: string,
  choice: KeywordChoice,
): Edited {
  return editWorkspace(document, workspace, (ws, path) => {
    const index = bookIndex(ws, asin);
    const book = listAt(ws, 'books')[index];
    if (!isObj(book)) throw new MissingEntry(`no book ${asin} in workspace "${workspace}"`);
    book.keywords = keywordsValue(choice);
    return `${path}.books[${index}].keywords`;
  });
}

export function removeBook(document: ConfigDocument, workspace: string, asin: string): Edited {
  return editWorkspace(document, workspace, (ws, path) => {
    const index = bookIndex(ws, asin);
    if (index < 0) throw new MissingEntry(`no book ${asin} in workspace "${workspace}"`);
    listAt(ws, 'books').splice(index, 1);
    return `${path}.books`;
  });
}

export function addCampaign(
  document: ConfigDocument,
  workspace: string,
  id: string,
  /** What people call it (`campaigns[].name`); empty: none. */
  name = '',
): Edited {
  return editWorkspace(document, workspace, (ws, path) => {
    const campaigns = listAt(ws, 'campaigns');
    campaigns.push(name.trim() === '' ? { id } : { id, name: name.trim() });
    return `${path}.campaigns[${campaigns.length - 1}]`;
  });
}

export function removeCampaign(document: ConfigDocument, workspace: string, id: string): Edited {
  return editWorkspace(document, workspace, (ws, path) => {
    const campaigns = listAt(ws, 'campaigns');
    const index = campaigns.findIndex((c) => isObj(c) && c.id === id);
    if (index < 0) throw new MissingEntry(`no campaign "${id}" in workspace "${workspace}"`);
    campaigns.splice(index, 1);
    return `${path}.campaigns`;
  });
}

/** `false`, `'all'` (every book's marketplace: the key left out) or a list. */
export function setSales(
  document: ConfigDocument,
  workspace: string,
  sales: false | 'all' | string[],
): Edited {
  return editWorkspace(document, workspace, (ws, path) => {
    if (sales === 'all') delete ws.sales;
    else ws.sales = sales === false ? false : { marketplaces: sales };
    return `${path}.sales`;
  });
}

export const CADENCE_KINDS = ['book', 'keywords', 'reviews', 'sales'] as const;
export type CadenceKind = (typeof CADENCE_KINDS)[number];

/** Fixed cadences per kind; an empty one is left to the planner. */
export function setCadences(
  document: ConfigDocument,
  workspace: string,
  cadences: Partial<Record<CadenceKind, string>>,
): Edited {
  return editWorkspace(document, workspace, (ws, path) => {
    const cadence: Obj = {};
    for (const kind of CADENCE_KINDS) {
      const value = cadences[kind];
      if (value !== undefined && value !== '') cadence[kind] = value;
    }
    if (Object.keys(cadence).length === 0) delete ws.cadence;
    else ws.cadence = cadence;
    return `${path}.cadence`;
  });
}

/** A rule of the workspace (`workspaces[i].rules`), or of the whole config when `workspace` is undefined. */
export function addRule(document: ConfigDocument, workspace: string | undefined, rule: Obj): Edited {
  if (workspace !== undefined) {
    return editWorkspace(document, workspace, (ws, path) => {
      const rules = listAt(ws, 'rules');
      rules.push(rule);
      return `${path}.rules[${rules.length - 1}]`;
    });
  }
  const copy = copyDocument(document);
  const rules = listAt(copy, 'rules');
  rules.push(rule);
  return { document: copy, path: `rules[${rules.length - 1}]` };
}

export function removeRule(document: ConfigDocument, workspace: string, id: string): Edited {
  return editWorkspace(document, workspace, (ws, path) => {
    const rules = listAt(ws, 'rules');
    const index = rules.findIndex((r) => isObj(r) && r.id === id);
    if (index < 0) throw new MissingEntry(`no rule "${id}" in workspace "${workspace}"`);
    rules.splice(index, 1);
    return `${path}.rules`;
  });
}

/** Top-level lists (channels, routes, muteWindows, digest recipients): append an entry. */
export function appendTo(
  document: ConfigDocument,
  key: 'channels' | 'routes' | 'muteWindows',
  entry: Obj,
): Edited {
  const copy = copyDocument(document);
  // Without a channels list the config has one log channel: keep it when adding the first.
  if (key === 'channels' && !Array.isArray(copy.channels)) copy.channels = [{ id: 'log', type: 'log' }];
  const items = listAt(copy, key);
  items.push(entry);
  return { document: copy, path: `${key}[${items.length - 1}]` };
}

export function removeAt(
  document: ConfigDocument,
  key: 'channels' | 'routes' | 'muteWindows',
  index: number,
): Edited {
  const copy = copyDocument(document);
  const items = listAt(copy, key);
  if (!Number.isSafeInteger(index) || index < 0 || index >= items.length)
    throw new MissingEntry(`no ${key} entry ${index + 1}`);
  items.splice(index, 1);
  if (key === 'routes' && items.length === 0) delete copy.routes;
  return { document: copy, path: key };
}

/** A channel's quiet hours (`undefined` removes them). */
export function setQuietHours(
  document: ConfigDocument,
  channel: string,
  quiet: { start: string; end: string; timeZone: string } | undefined,
): Edited {
  const copy = copyDocument(document);
  const index = channelIndex(copy, channel);
  const entry = (copy.channels as unknown[] | undefined)?.[index];
  if (index < 0 || !isObj(entry)) throw new MissingEntry(`no channel "${channel}" in the current revision`);
  if (quiet === undefined) delete entry.quietHours;
  else entry.quietHours = quiet;
  return { document: copy, path: `channels[${index}].quietHours` };
}

export function setDigest(document: ConfigDocument, digest: { enabled: boolean; time: string }): Edited {
  const copy = copyDocument(document);
  const current = objAt(copy, 'digest');
  current.enabled = digest.enabled;
  current.time = digest.time;
  return { document: copy, path: 'digest' };
}

export function addRecipient(
  document: ConfigDocument,
  recipient: { workspace: string; channel: string },
): Edited {
  const copy = copyDocument(document);
  const recipients = listAt(objAt(copy, 'digest'), 'recipients');
  recipients.push(recipient);
  return { document: copy, path: `digest.recipients[${recipients.length - 1}]` };
}

export function removeRecipient(document: ConfigDocument, index: number): Edited {
  const copy = copyDocument(document);
  const recipients = listAt(objAt(copy, 'digest'), 'recipients');
  if (!Number.isSafeInteger(index) || index < 0 || index >= recipients.length)
    throw new MissingEntry(`no digest recipient ${index + 1}`);
  recipients.splice(index, 1);
  return { document: copy, path: 'digest.recipients' };
}
