/**
 * The web console: server-rendered pages over what shelfwatch keeps in Redis (status, the alert
 * log, silences, dead letters, snapshots). It holds no API client, so it never spends budget.
 * Every page needs a session; every write needs the session's CSRF token; the Host header must
 * name the bind address. Pages send a CSP without inline scripts.
 */
import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import type { Runtime } from '../app/runtime.ts';
import { allowedHosts, ConsoleAuth, SESSION_COOKIE } from './auth.ts';
import { html } from './html.ts';
import { barePage, loginPage, notFound } from './layout.ts';
import { mountQueues } from './queues.ts';
import { registerPages } from './routes.ts';
import { CONSOLE_CSS } from './style.ts';

export interface ConsoleOptions {
  runtime: Runtime;
  token: string;
  host: string;
  port: number;
}

const CSS = CONSOLE_CSS;

/** No inline script anywhere; styles from our own file; forms post only here; no framing. */
const PAGE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
/** Bull Board's own UI: its scripts are files of its own, its styles partly inline. */
const QUEUES_CSP =
  "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'";

const PUBLIC = new Set(['/login', '/static/console.css']);

declare module 'fastify' {
  interface FastifyRequest {
    session?: string;
  }
}

function pathOf(request: FastifyRequest): string {
  return request.url.split('?')[0] ?? '/';
}

export async function buildConsole(options: ConsoleOptions): Promise<FastifyInstance> {
  const { runtime } = options;
  const auth = new ConsoleAuth(options.token);
  let hosts: Set<string> | undefined;
  // Bound to port 0 (tests), the real port is only known once it listens.
  const hostsNow = () => {
    if (hosts !== undefined) return hosts;
    const address = app.server.address();
    const port =
      options.port !== 0 ? options.port : typeof address === 'object' && address !== null ? address.port : 0;
    const allowed = allowedHosts(options.host, port);
    if (port !== 0) hosts = allowed;
    return allowed;
  };
  const app = Fastify({ logger: false, trustProxy: false, bodyLimit: 64 * 1024 });
  await app.register(fastifyCookie);
  await app.register(fastifyFormbody);

  app.addHook('onRequest', async (request, reply) => {
    const host = (request.headers.host ?? '').toLowerCase();
    if (!hostsNow().has(host)) {
      return reply.code(421).type('text/plain').send('This console answers only to its own address.\n');
    }
    const path = pathOf(request);
    const session = auth.session(request.cookies[SESSION_COOKIE]);
    if (session !== undefined) request.session = session;
    if (PUBLIC.has(path)) return;
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
    if (request.method === 'GET' || request.method === 'HEAD' || pathOf(request) === '/login') return;
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (request.session === undefined || !auth.checkCsrf(request.session, body._csrf)) {
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
  });
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('Content-Security-Policy', pathOf(request).startsWith('/queues') ? QUEUES_CSP : PAGE_CSP);
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Referrer-Policy', 'no-referrer');
    reply.header('X-Frame-Options', 'DENY');
    reply.header('Cache-Control', 'no-store');
    return payload;
  });

  app.get('/static/console.css', async (_request, reply) => reply.type('text/css').send(CSS));
  app.get('/login', async (request, reply) => {
    if (request.session !== undefined) return reply.redirect('/', 303);
    return reply.type('text/html').send(loginPage());
  });
  app.post('/login', async (request, reply) => {
    const token = (request.body as Record<string, unknown> | undefined)?.token;
    if (typeof token !== 'string' || !auth.checkToken(token)) {
      return reply.code(401).type('text/html').send(loginPage('Wrong token.'));
    }
    const session = auth.newSession();
    reply.setCookie(SESSION_COOKIE, session.value, {
      httpOnly: true,
      sameSite: 'strict',
      path: '/',
      maxAge: session.maxAgeS,
    });
    return reply.redirect('/', 303);
  });
  app.post('/logout', async (_request, reply) => {
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return reply.redirect('/login', 303);
  });

  const context = (request: FastifyRequest) => ({
    path: pathOf(request),
    csrf: request.session === undefined ? '' : auth.csrfToken(request.session),
  });
  registerPages(app, runtime, context);
  await mountQueues(app, runtime);

  app.setNotFoundHandler(async (request, reply) => notFound(reply, context(request), 'No such page.'));
  app.setErrorHandler(async (error, request, reply) => {
    runtime.logger.warn({ err: error, path: pathOf(request) }, 'console request failed');
    const status = (error as { statusCode?: number }).statusCode ?? 500;
    return reply
      .code(status >= 400 && status < 600 ? status : 500)
      .type('text/html')
      .send(
        barePage(
          'Something went wrong',
          html`<p class="error" role="alert">The console could not answer this request (${status}).</p>`,
        ),
      );
  });
  return app;
}
