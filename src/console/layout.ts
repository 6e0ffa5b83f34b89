import type { FastifyReply } from 'fastify';
import { html, type SafeHtml, trustedHtml } from './html.ts';
import { viewerZone } from './viewer-zone.ts';

/** What every page needs from the request: where it is and the session's CSRF token for its forms. */
export interface PageContext {
  path: string;
  csrf: string;
}

const NAV: { href: string; label: string }[] = [
  { href: '/', label: 'Overview' },
  { href: '/me', label: 'My books' },
  { href: '/alerts', label: 'Alerts' },
  { href: '/silences', label: 'Silences' },
  { href: '/dead-letters', label: 'Dead letters' },
  { href: '/config', label: 'Config' },
  { href: '/queues', label: 'Queues' },
];

function current(path: string, href: string): boolean {
  return href === '/' ? path === '/' : path === href || path.startsWith(`${href}/`);
}

/** The hidden field every form that writes carries. */
export function csrfField(ctx: PageContext): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${ctx.csrf}">`;
}

/**
 * On a phone a wide table scrolls inside itself (style.ts): a scrolling region must take the focus
 * so it can be scrolled by keyboard. Every `<table` here is our markup: escaped text cannot hold one.
 */
function focusableTables(body: SafeHtml): SafeHtml {
  return trustedHtml(body.value.replaceAll('<table', '<table tabindex="0"'));
}

export function page(title: string, ctx: PageContext, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · shelfwatch</title>
<link rel="stylesheet" href="/static/console.css">
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <span class="brand">shelfwatch</span>
  <nav aria-label="Main">
    <ul>${NAV.map(
      (item) =>
        html`<li><a href="${item.href}"${current(ctx.path, item.href) ? html` aria-current="page"` : ''}>${item.label}</a></li>`,
    )}</ul>
  </nav>
  <form method="post" action="/logout" class="logout">${csrfField(ctx)}<button type="submit">Log out</button></form>
</header>
<main id="main" tabindex="-1">
<h1>${title}</h1>
${focusableTables(body)}
<p class="hint">Times in ${viewerZone()}.</p>
</main>
</body>
</html>`.value;
}

/** Pages shown without a session (login, errors before login): no navigation, no data. */
export function barePage(title: string, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · shelfwatch</title><link rel="stylesheet" href="/static/console.css"></head>
<body><main id="main" class="bare"><h1>${title}</h1>${body}</main></body>
</html>`.value;
}

export function loginPage(message?: string, notice?: string): string {
  return barePage(
    'Log in',
    html`${message === undefined ? '' : html`<p class="error" role="alert">${message}</p>`}
${notice === undefined ? '' : html`<p class="notice" role="status">${notice}</p>`}
<form method="post" action="/login" class="login">
  <label for="token">Console token or personal token</label>
  <input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
  <button type="submit">Log in</button>
</form>
<form method="post" action="/login/link" class="login">
  <label for="email">Or get a sign-in link by email</label>
  <input id="email" name="email" type="email" autocomplete="email" required>
  <button type="submit" class="secondary">Email me a link</button>
</form>
<p class="hint">The token is in <code>console.token</code> of the config, <code>SHELFWATCH_CONSOLE_TOKEN</code>, or was printed once by <code>shelfwatch console</code>.</p>`,
  );
}

/** A refused form or filter: which field and why. */
export function fieldErrors(problems: readonly { field: string; reason: string }[]): SafeHtml {
  if (problems.length === 0) return html``;
  return html`<div class="error" role="alert"><p>Not accepted:</p><ul>${problems.map(
    (p) => html`<li><strong>${p.field}</strong>: ${p.reason}</li>`,
  )}</ul></div>`;
}

/** The 404 page, for unknown paths (server.ts) and unknown ids in known ones (routes.ts). */
export function notFound(reply: FastifyReply, ctx: { path: string; csrf: string }, what: string) {
  return reply
    .code(404)
    .type('text/html')
    .send(page('Not found', ctx, html`<p>${what}</p><p><a href="/">Back to the overview</a></p>`));
}
