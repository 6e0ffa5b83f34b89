/** The config's front page: the current revision, its workspaces (file-managed ones marked) and the delivery pages. */
import type { EditableRevision } from '../config-editor.ts';
import { html } from '../html.ts';
import { type PageContext, page } from '../layout.ts';
import { revisionLine, stateNotices } from './config-common.ts';

export function configIndexPage(ctx: PageContext, view: EditableRevision, notice?: string): string {
  const body = html`${revisionLine(view.revision)}${stateNotices(notice === undefined ? {} : { notice })}
<h2>Workspaces</h2>
<ul class="items">${view.config.workspaces.map((ws) => {
    const file = view.fileOf(ws.id);
    return html`<li><a href="/config/workspaces/${ws.id}">${ws.id}</a>: ${ws.books.length} book(s), ${ws.campaigns.length} campaign(s)${
      file === undefined
        ? ' · edited here'
        : html` · <span class="wrap">managed by the file <code>${file}</code> (read-only here)</span>`
    }</li>`;
  })}</ul>
<h2>Delivery</h2>
<ul class="items">
<li><a href="/config/channels">Channels</a>: ${view.config.channels.length} (send a test, quiet hours, add)</li>
<li><a href="/config/alerting">Routes, mute windows and the digest</a></li>
</ul>`;
  return page('Configuration', ctx, body);
}
