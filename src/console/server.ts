/**
 * The web console: server-rendered pages over what shelfwatch keeps in Redis (status, the alert
 * log, silences, dead letters, snapshots). It holds no API client, so it never spends budget.
 * Every page needs a session; every write needs the session's CSRF token; the Host header must
 * name the bind address. Pages send a CSP without inline scripts.
 */
import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Runtime } from '../app/runtime.ts';
import type { Role } from '../config/schema.ts';
import type { Session } from './access/sessions.ts';
import { allowedHosts, ConsoleAuth, roleOf, SESSION_COOKIE } from './auth.ts';
import { type ConfigEditor, UnusableRevisionError } from './config-editor.ts';
import { registerConfigRoutes } from './config-routes.ts';
import { html } from './html.ts';
import { barePage, loginPage, notFound } from './layout.ts';
import { MUTE_PATH, registerMuteRoutes } from './mute-routes.ts';
import { registerMyBooks } from './my-books.ts';
import { unusableRevisionPage } from './pages/config-unusable.ts';
import { mountQueues } from './queues.ts';
import { registerPages } from './routes.ts';
import { registerSignIn } from './sign-in.ts';
import { CONSOLE_CSS } from './style.ts';
import { FORM_CSS } from './style-forms.ts';
import { homeOf, installViewerZone } from './viewer-zone.ts';

export interface ConsoleOptions {
  runtime: Runtime;
  token: string;
  host: string;
  port: number;
  /** The revision store behind the config forms (`/config`); without one those pages are absent. */
  editor?: ConfigEditor;
}

const CSS = CONSOLE_CSS + FORM_CSS;

/** No inline script anywhere; styles from our own file; forms post only here; no framing. */
const PAGE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
/**
 * Bull Board's own UI: its scripts are files of its own, its styles partly inline, and its page sets
 * `<base href="/queues/">` to find them (with `base-uri 'none'` every asset 404ed and the page stayed
 * on "Loading"): `base-uri 'self'` here only, every other page keeps 'none'.
 */
const QUEUES_CSP =
  "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'self'";

const PUBLIC = new Set(['/login', '/login/link', '/login/link/use', '/static/console.css']);
/** Writes a role may not make (a viewer none but logging out; a member no dead-letter retries). */
function forbidden(role: Role | undefined, path: string): boolean {
  if (path === '/logout' || role === 'admin') return false;
  if (role === 'member') return !path.startsWith('/silences');
  return true;
}

declare module 'fastify' {
  interface FastifyRequest {
    session?: Session;
  }
}

function pathOf(request: FastifyRequest): string {
  return request.url.split('?')[0] ?? '/';
}

/** Mute links work without signing in: the signed link is their authority (`mute-routes.ts`). */
function isPublic(path: string): boolean {
  return PUBLIC.has(path) || path.startsWith(MUTE_PATH);
}

export async function buildConsole(options: ConsoleOptions): Promise<FastifyInstance> {
  const { runtime } = options;
  // The console section takes effect at a restart (Runtime.apply says so); people follow the
  // revision in force, read per request.
  const { publicUrl, trustedProxies } = runtime.config.console;
  const people = () => runtime.config.people.accounts;
  const auth = new ConsoleAuth(
    options.token,
    runtime.redis,
    runtime.prefix,
    () => runtime.clock.now(),
    people,
  );
  let hosts: Set<string> | undefined;
  // Bound to port 0 (tests), the real port is only known once it listens.
  const hostsNow = () => {
    if (hosts !== undefined) return hosts;
    const address = app.server.address();
    const port =
      options.port !== 0 ? options.port : typeof address === 'object' && address !== null ? address.port : 0;
    const allowed = allowedHosts(options.host, port, publicUrl);
    if (port !== 0) hosts = allowed;
    return allowed;
  };
  // Only the configured proxies may say who the client is, which host it asked for and over what.
  const app = Fastify({
    logger: false,
    trustProxy: trustedProxies.length > 0 ? [...trustedProxies] : false,
    bodyLimit: 64 * 1024,
    // A mute link's signed token is one path parameter of a few hundred characters (default cap: 100).
    maxParamLength: 4_200,
  });
  const secureCookie = (request: FastifyRequest) =>
    publicUrl?.startsWith('https:') === true || request.protocol === 'https';
  const setCookie = (request: FastifyRequest, reply: FastifyReply, session: Session) =>
    reply.setCookie(SESSION_COOKIE, session.id, {
      httpOnly: true,
      sameSite: 'strict',
      secure: secureCookie(request),
      path: '/',
      maxAge: Math.floor(auth.sessions.ttlMs / 1_000),
    });
  await app.register(fastifyCookie);
  await app.register(fastifyFormbody);

  installViewerZone(app, () => runtime.config);
  app.addHook('onRequest', async (request, reply) => {
    // `request.host` is the Host header, or X-Forwarded-Host from a trusted proxy.
    if (!hostsNow().has(request.host.toLowerCase())) {
      return reply.code(421).type('text/plain').send('This console answers only to its own address.\n');
    }
    const path = pathOf(request);
    const session = await auth.sessions.get(request.cookies[SESSION_COOKIE]);
    if (session !== undefined) request.session = session;
    if (isPublic(path)) return;
    if (session === undefined) {
      return reply
        .code(401)
        .type('text/html')
        .send(loginPage(request.method === 'GET' && path !== '/' ? 'Log in to see this page.' : undefined));
    }
    if (request.method !== 'GET' && request.method !== 'HEAD' && !path.startsWith('/queues/')) {
      // Form bodies are parsed after onRequest: the CSRF check runs in preHandler.
      return;
    }
  });
  app.addHook('preHandler', async (request, reply) => {
    const path = pathOf(request);
    if (
      request.method === 'GET' ||
      request.method === 'HEAD' ||
      PUBLIC.has(path) ||
      path.startsWith(MUTE_PATH)
    )
      return;
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (request.session === undefined || !auth.sessions.checkCsrf(request.session, body._csrf)) {
      return reply
        .code(403)
        .type('text/html')
        .send(
          barePage(
            'Refused',
            html`<p class="error" role="alert">This form was not sent from a page of this console (missing or wrong CSRF token). Reload the page and try again.</p>`,
          ),
        );
    }
    if (forbidden(roleOf(request.session, people()), path)) {
      return reply
        .code(403)
        .type('text/html')
        .send(
          barePage('Refused', html`<p class="error" role="alert">Your role does not allow this change.</p>`),
        );
    }
  });
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('Content-Security-Policy', pathOf(request).startsWith('/queues') ? QUEUES_CSP : PAGE_CSP);
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Referrer-Policy', 'no-referrer');
    reply.header('X-Frame-Options', 'DENY');
    reply.header('Cache-Control', 'no-store');
    return payload;
  });

  // Set before any route: a route keeps the error handler in force when it is added (a body over
  // the limit on a form route answered fastify's JSON instead of this page).
  app.setErrorHandler(async (error, request, reply) => {
    if (error instanceof UnusableRevisionError)
      return reply
        .code(503)
        .type('text/html; charset=utf-8')
        .send(unusableRevisionPage(context(request), error, runtime.revision));
    runtime.logger.warn({ err: error, path: pathOf(request) }, 'console request failed');
    const status = (error as { statusCode?: number }).statusCode ?? 500;
    return reply
      .code(status >= 400 && status < 600 ? status : 500)
      .type('text/html')
      .send(
        barePage(
          'Something went wrong',
          status === 413
            ? html`<p class="error" role="alert">The form was larger than this console accepts (64 KB): nothing was saved.</p>`
            : html`<p class="error" role="alert">The console could not answer this request (${status}).</p>`,
        ),
      );
  });
  app.get('/static/console.css', async (_request, reply) => reply.type('text/css').send(CSS));
  app.get('/login', async (request, reply) => {
    if (request.session !== undefined) return reply.redirect(homeOf(request.session), 303);
    return reply.type('text/html').send(loginPage());
  });
  app.post('/login', async (request, reply) => {
    const token = (request.body as Record<string, unknown> | undefined)?.token;
    const result = await auth.login(request.ip, token);
    if (!result.ok && result.refused === 'throttled') {
      const minutes = Math.ceil(result.throttle.retryAfterMs / 60_000);
      return reply
        .code(429)
        .header('Retry-After', String(Math.ceil(result.throttle.retryAfterMs / 1_000)))
        .type('text/html')
        .send(loginPage(`Too many wrong tokens: sign-in is blocked for ${minutes} more minute(s).`));
    }
    if (!result.ok) return reply.code(401).type('text/html').send(loginPage('Wrong token.'));
    setCookie(request, reply, result.session);
    return reply.redirect(homeOf(result.session), 303);
  });
  registerSignIn(app, {
    runtime,
    signingKey: options.token,
    openSession: (subject) => auth.sessions.create(subject),
    setCookie,
  });
  app.post('/logout', async (request, reply) => {
    // The session ends in Redis, for every process: a copy of the cookie is worth nothing after.
    if (request.session !== undefined) await auth.sessions.revoke(request.session.id);
    reply.clearCookie(SESSION_COOKIE, { path: '/', secure: secureCookie(request) });
    return reply.redirect('/login', 303);
  });

  const context = (request: FastifyRequest) => ({
    path: pathOf(request),
    csrf: request.session === undefined ? '' : auth.sessions.csrfToken(request.session),
  });
  registerPages(app, runtime, context);
  registerMyBooks(app, runtime, context);
  registerConfigRoutes(app, runtime, context, options.editor);
  await registerMuteRoutes(app, runtime, runtime.config.console.linkSecret?.reveal());
  await mountQueues(app, runtime);

  app.setNotFoundHandler(async (request, reply) => notFound(reply, context(request), 'No such page.'));
  return app;
}
