/**
 * Every time on a console page is shown in the viewer's zone: the signed-in person's own, else the
 * workspaces' zone (UTC when they differ). The zone lives in a request-scoped store
 * (AsyncLocalStorage) instead of being passed through every page's arguments, so `timeText`
 * anywhere in a page follows the viewer without each of the dozen pages carrying it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance } from 'fastify';
import type { Person, ShelfwatchConfig } from '../config/schema.ts';
import type { Session } from './access/sessions.ts';
import { PERSON_SUBJECT } from './auth.ts';

interface ViewerStore {
  zone: string | undefined;
}

const store = new AsyncLocalStorage<ViewerStore>();

/** The workspaces' zone when they share one, else UTC: the zone of a viewer who is no person. */
export function workspaceZoneOf(config: Pick<ShelfwatchConfig, 'workspaces'>): string {
  const zones = new Set(config.workspaces.map((ws) => ws.timeZone));
  const [only] = zones;
  return zones.size === 1 && only !== undefined ? only : 'UTC';
}

/** The person a session belongs to, when it was opened by a person (not the console token). */
export function personOf(session: Session | undefined, people: readonly Person[]): Person | undefined {
  if (session === undefined || !session.subject.startsWith(PERSON_SUBJECT)) return undefined;
  const id = session.subject.slice(PERSON_SUBJECT.length);
  return people.find((person) => person.id === id);
}

/** Where a session lands after signing in: a person's own books, the overview for the token. */
export function homeOf(session: Session): string {
  return session.subject.startsWith(PERSON_SUBJECT) ? '/me' : '/';
}

/** The zone of the request being answered; UTC outside a request (a page rendered by a test). */
export function viewerZone(): string {
  return store.getStore()?.zone ?? 'UTC';
}

/**
 * Opens the request's store before any other hook (so every later hook and the handler run inside
 * it) and fills it once the session is known (`preValidation` runs after every `onRequest`).
 */
export function installViewerZone(
  app: FastifyInstance,
  config: () => Pick<ShelfwatchConfig, 'workspaces' | 'people'>,
): void {
  app.addHook('onRequest', (_request, _reply, done) => {
    store.run({ zone: undefined }, done);
  });
  app.addHook('preValidation', async (request) => {
    const viewer = store.getStore();
    if (viewer === undefined) return;
    const now = config();
    viewer.zone = personOf(request.session, now.people.accounts)?.timeZone ?? workspaceZoneOf(now);
  });
}
