/**
 * People's sign-in by email: `POST /login/link` mails a one-time link (access/links.ts) through
 * the SMTP server of the people's mail channel; `GET /login/link?t=…` only shows a confirmation
 * (mail scanners fetch links: a GET changes nothing), and its `POST /login/link/use` opens the
 * session. Requests are throttled per client and per account with the login's FailureThrottle; the
 * answer is the same whether or not the address belongs to someone, so it tells nobody who has
 * an account.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Runtime } from '../app/runtime.ts';
import type { Person } from '../config/schema.ts';
import { MINUTE_MS } from '../util/time-units.ts';
import { LINK_REFUSALS, SignInLinks } from './access/links.ts';
import type { Session } from './access/sessions.ts';
import { FailureThrottle, type ThrottleLimit } from './access/throttle.ts';
import { PERSON_SUBJECT } from './auth.ts';
import { html } from './html.ts';
import { barePage, loginPage } from './layout.ts';

/** Five links a client may ask for in 15 minutes, three for one account: enough for a typo or two. */
export const LINK_LIMITS: readonly ThrottleLimit[] = [
  { scope: 'client', max: 5, windowMs: 15 * MINUTE_MS },
  { scope: 'account', max: 3, windowMs: 15 * MINUTE_MS },
];
/** Wrong or used links tried from one client before it is blocked for the window. */
const USE_LIMITS: readonly ThrottleLimit[] = [{ scope: 'client', max: 10, windowMs: 15 * MINUTE_MS }];

export interface SignInDeps {
  runtime: Runtime;
  signingKey: string;
  openSession(subject: string): Promise<Session>;
  setCookie(request: FastifyRequest, reply: FastifyReply, session: Session): void;
}

const SENT =
  'If this address belongs to an account, a sign-in link is on its way. It works once, for 15 minutes.';

export function registerSignIn(app: FastifyInstance, deps: SignInDeps): void {
  const { runtime } = deps;
  const links = new SignInLinks(runtime.redis, runtime.prefix, deps.signingKey, () => runtime.clock.now());
  const asking = new FailureThrottle(runtime.redis, `${runtime.prefix}:links`, LINK_LIMITS);
  const using = new FailureThrottle(runtime.redis, `${runtime.prefix}:link-use`, USE_LIMITS);
  // Per request: the people and channels of the revision in force.
  const people = () => runtime.config.people.accounts;
  const mail = () =>
    runtime.config.channels.find(
      (channel) => channel.type === 'email' && people().some((p) => p.mailChannelId === channel.id),
    );
  const base = (request: FastifyRequest) =>
    runtime.config.console.publicUrl ?? `${request.protocol}://${request.host}`;

  app.post('/login/link', async (request, reply) => {
    const email = String((request.body as Record<string, unknown> | undefined)?.email ?? '')
      .trim()
      .toLowerCase();
    const subjects = { client: request.ip, account: email };
    const refusal = await asking.refusal(subjects);
    if (refusal !== undefined) {
      const minutes = Math.ceil(refusal.retryAfterMs / 60_000);
      return reply
        .code(429)
        .header('Retry-After', String(Math.ceil(refusal.retryAfterMs / 1_000)))
        .type('text/html')
        .send(loginPage(`Too many sign-in links asked for: try again in ${minutes} minute(s).`));
    }
    // Every request counts, found or not: links cost an email each.
    await asking.failed(subjects);
    const person = people().find((p: Person) => p.email.toLowerCase() === email);
    const channel = person?.mailChannelId === undefined ? undefined : mail();
    if (person !== undefined && channel !== undefined && channel.type === 'email') {
      const token = await links.issue(person.id);
      const url = `${base(request)}/login/link?t=${encodeURIComponent(token)}`;
      try {
        await runtime.smtp.sendMail(
          channel.smtpUrl,
          {
            from: channel.from,
            to: person.email,
            subject: 'Your shelfwatch sign-in link',
            text: `Hello ${person.name},\n\nopen this link to sign in to the shelfwatch console:\n\n${url}\n\nIt works once, for 15 minutes. If you did not ask for it, ignore this email.\n`,
          },
          { allowInsecure: channel.allowInsecure },
        );
      } catch (error) {
        runtime.logger.warn({ err: error, person: person.id }, 'sign-in link not sent');
      }
    }
    return reply.type('text/html').send(loginPage(undefined, SENT));
  });

  const refused = (reply: FastifyReply, why: string) =>
    reply
      .code(400)
      .type('text/html')
      .send(
        barePage(
          'Sign-in link refused',
          html`<p class="error" role="alert">${why}</p><p>Nothing was changed. <a href="/login">Back to sign-in</a></p>`,
        ),
      );

  app.get('/login/link', async (request, reply) => {
    const token = (request.query as Record<string, unknown>).t;
    const checked = links.check(token);
    if (!checked.ok) return refused(reply, LINK_REFUSALS[checked.refused]);
    // A confirmation only: scanners that fetch links in mail must not use them up.
    return reply
      .type('text/html')
      .send(
        barePage(
          'Sign in',
          html`<form method="post" action="/login/link/use" class="login"><input type="hidden" name="t" value="${String(token)}"><button type="submit">Sign in</button></form>`,
        ),
      );
  });

  app.post('/login/link/use', async (request, reply) => {
    const refusal = await using.refusal({ client: request.ip });
    if (refusal !== undefined)
      return reply
        .code(429)
        .header('Retry-After', String(Math.ceil(refusal.retryAfterMs / 1_000)))
        .type('text/html')
        .send(loginPage('Too many refused sign-in links from here: try again later.'));
    const used = await links.use((request.body as Record<string, unknown> | undefined)?.t);
    if (!used.ok) {
      await using.failed({ client: request.ip });
      return refused(reply, LINK_REFUSALS[used.refused]);
    }
    if (!people().some((p) => p.id === used.subject)) return refused(reply, LINK_REFUSALS.forged);
    const session = await deps.openSession(`${PERSON_SUBJECT}${used.subject}`);
    deps.setCookie(request, reply, session);
    // A person's home is their own books; the overview is one click away.
    return reply.redirect('/me', 303);
  });
}
