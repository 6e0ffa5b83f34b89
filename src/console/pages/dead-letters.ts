import type { DeadLetter } from '../../deliver/dead-letters.ts';
import { html, timeText } from '../html.ts';
import { csrfField, type PageContext, page } from '../layout.ts';

export function deadLettersPage(
  ctx: PageContext,
  input: { letters: readonly DeadLetter[]; channel?: string; notice?: string },
): string {
  const channels = [...new Set(input.letters.map((l) => l.channelId))].sort();
  const body = html`${input.notice === undefined ? '' : html`<p class="notice" role="status">${input.notice}</p>`}
${
  input.letters.length === 0
    ? html`<p>No dead letters${input.channel === undefined ? '' : html` for ${input.channel}`}.</p>`
    : html`${channels.map(
        (channel) => html`<section aria-labelledby="ch-${channel}"><h2 id="ch-${channel}">${channel}</h2>
<form class="inline" method="post" action="/dead-letters/retry">${csrfField(ctx)}<input type="hidden" name="channel" value="${channel}"><button type="submit">Retry ${channel}</button></form>
<form class="inline" method="post" action="/dead-letters/purge">${csrfField(ctx)}<input type="hidden" name="channel" value="${channel}"><button class="secondary" type="submit">Purge ${channel}</button></form>
<table><thead><tr><th scope="col">Failed</th><th scope="col">Group</th><th scope="col">Alerts</th><th scope="col">Reason</th><th scope="col">Attempts</th></tr></thead><tbody>${input.letters
          .filter((l) => l.channelId === channel)
          .map(
            (l) => html`<tr><td>${timeText(l.failedAtMs)}</td><td>${l.groupKey}</td>
<td class="text">${l.alertCount}${l.titles.length === 0 ? '' : html`<ul>${l.titles.slice(0, 10).map((t) => html`<li>${t}</li>`)}</ul>`}</td>
<td class="text">${l.failedReason}</td><td>${l.attempts}</td></tr>`,
          )}</tbody></table></section>`,
      )}`
}`;
  return page('Dead letters', ctx, body);
}
