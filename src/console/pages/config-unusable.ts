/**
 * The config pages when the revision in force cannot be used in this process: what is missing
 * (each problem at its path, the same words as `validate`; a secret's value is never in them),
 * what this process runs meanwhile, and the two ways out.
 */
import type { UnusableRevisionError } from '../config-editor.ts';
import { html } from '../html.ts';
import { type PageContext, page } from '../layout.ts';

export function unusableRevisionPage(
  ctx: PageContext,
  error: UnusableRevisionError,
  running: number,
): string {
  const keeps =
    running > 0
      ? html`This process keeps running revision <strong>${running}</strong>, the last one it could use.`
      : html`This process runs the configuration it was started with.`;
  return page(
    'Configuration',
    ctx,
    html`<p class="error" role="alert">Revision <strong>${error.revision}</strong> is in force but cannot be used in the process serving this console, so its forms cannot be shown:</p>
<ul class="items">${error.problems.map((p) => html`<li class="wrap"><strong>${p.path}</strong>: ${p.message}</li>`)}</ul>
<p>${keeps} Set what is missing in this process's environment (a <code>\${VAR}</code> the revision refers to, or <code>SHELFWATCH_CONFIG_KEY</code> for its sealed secrets) and restart it, or store a revision every process can use, such as <code>shelfwatch config rollback ${running > 0 ? String(running) : 'REV'}</code>.</p>`,
  );
}
