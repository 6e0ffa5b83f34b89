/**
 * `/mute/<token>`: the one place a message's links lead. Public (no session, no CSRF token): the
 * signed link is the authority, since an RFC 8058 one-click POST comes from a mail provider with
 * neither cookie nor token. A GET only shows what the link would do (scanners prefetch links); a
 * POST does it, once. The answer is the page itself, never a redirect.
 */
import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../app/runtime.ts';
import { MuteLinkUse, type MuteVia } from '../silence/mute-apply.ts';
import { html } from './html.ts';
import { barePage } from './layout.ts';
import { mutePage } from './pages/mute.ts';

export const MUTE_PATH = '/mute/';
const TOKEN = /^[A-Za-z0-9_.-]{1,4100}$/;

/** RFC 8058's POST body; mail clients send it as multipart/form-data or urlencoded. */
function viaOf(body: unknown): MuteVia {
  const text = typeof body === 'string' ? body : JSON.stringify(body ?? '');
  return /List-Unsubscribe[^A-Za-z]*One-Click/i.test(text) ? 'one-click' : 'page';
}

export async function registerMuteRoutes(
  app: FastifyInstance,
  runtime: Runtime,
  secret: string | undefined,
): Promise<void> {
  const use =
    secret === undefined
      ? undefined
      : new MuteLinkUse(runtime.redis, runtime.prefix, secret, runtime.silences, runtime.alertLog);
  const html200 = 'text/html; charset=utf-8';
  await app.register(async (scope) => {
    // The one-click POST may come as multipart/form-data (RFC 8058 prefers it); its content is not
    // needed beyond telling a mail client's POST from the page's button.
    scope.addContentTypeParser(
      'multipart/form-data',
      { parseAs: 'string', bodyLimit: 8_192 },
      (_req, body, done) => done(null, body),
    );
    const off = () =>
      barePage(
        'Mute links are off',
        html`<p class="error" role="alert">This shelfwatch has no <code>console.linkSecret</code>: it cannot check mute links. Nothing was muted.</p>`,
      );
    scope.get<{ Params: { token: string } }>(`${MUTE_PATH}:token`, async (request, reply) => {
      if (use === undefined) return reply.code(503).type(html200).send(off());
      const token = request.params.token;
      const state = TOKEN.test(token)
        ? await use.inspect(token, runtime.clock.now())
        : ({ state: 'malformed' } as const);
      const page = mutePage(state, `${MUTE_PATH}${token}`);
      return reply.code(page.status).type(html200).send(page.body);
    });
    scope.post<{ Params: { token: string } }>(`${MUTE_PATH}:token`, async (request, reply) => {
      if (use === undefined) return reply.code(503).type(html200).send(off());
      const token = request.params.token;
      const outcome = TOKEN.test(token)
        ? await use.apply(token, runtime.clock.now(), viaOf(request.body))
        : ({ state: 'malformed' } as const);
      if (outcome.state === 'muted')
        runtime.logger.info(
          { silenceId: outcome.silence.id, by: outcome.silence.createdBy },
          'silence set from a mute link',
        );
      const page = mutePage(outcome, `${MUTE_PATH}${token}`);
      return reply.code(page.status).type(html200).send(page.body);
    });
  });
}
