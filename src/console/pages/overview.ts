import type { StatusReport, WorkspaceStatus } from '../../app/status.ts';
import { describeMatchers } from '../../silence/view.ts';
import { html, numberText, type SafeHtml, timeText } from '../html.ts';
import { type PageContext, page } from '../layout.ts';

function percent(part: number, whole: number): number {
  return whole <= 0 ? 0 : Math.min(100, Math.round((part / whole) * 100));
}

function workspaceCards(ws: WorkspaceStatus): SafeHtml {
  const byHealth = new Map<string, number>();
  for (const t of ws.targets) {
    const key = t.lastOutcome ?? 'not polled';
    byHealth.set(key, (byHealth.get(key) ?? 0) + 1);
  }
  return html`<section aria-labelledby="ws-${ws.id}">
<h2 id="ws-${ws.id}">Workspace ${ws.id} <span class="mute">(${ws.plan.name} plan)</span>
${ws.pause === null ? '' : html`<span class="pill error">paused${ws.pause.reason === null ? '' : `: ${ws.pause.reason}`}</span>`}</h2>
<div class="cards">
  <div class="card"><h3>Requests this month (${ws.month.label})</h3>
    <div class="big">${numberText(ws.month.used)} <span class="mute">of ${numberText(ws.month.limit)}</span></div>
    <meter min="0" max="${ws.month.limit}" high="${ws.month.pollCeiling}" value="${ws.month.used}" aria-label="${percent(ws.month.used, ws.month.limit)}% of the month's requests used"></meter>
    <p class="mute">Polls stop at ${numberText(ws.month.pollCeiling)}; reserve ${Math.round(ws.reserve * 100)}% for commands. Resets ${timeText(ws.month.resetsAtMs)}.</p></div>
  <div class="card"><h3>Projected at month end</h3>
    <div class="big">${numberText(ws.projectedMonthEnd)}</div>
    <p>${ws.planFits ? html`<span class="pill ok">plan fits</span>` : html`<span class="pill critical">over the plan</span>`}</p></div>
  <div class="card"><h3>This minute</h3><div class="big">${numberText(ws.minute.used)} <span class="mute">of ${numberText(ws.minute.limit)}</span></div></div>
  <div class="card"><h3>Targets by health</h3>
    <ul>${[...byHealth].map(([state, n]) => html`<li><span class="pill ${state}">${state}</span> ${n}</li>`)}</ul></div>
</div>
<h2>Targets</h2>
<table><caption class="mute">Next polls and last outcomes of ${ws.id}</caption>
<thead><tr><th scope="col">Target</th><th scope="col">Last outcome</th><th scope="col">Last poll</th><th scope="col">Next poll</th><th scope="col">Failures</th></tr></thead>
<tbody>${ws.targets.slice(0, 200).map(
    (
      t,
    ) => html`<tr><td>${targetLink(ws.id, t.id, t.name)}</td><td><span class="pill ${t.lastOutcome ?? ''}">${t.lastOutcome ?? 'not polled'}</span>${t.lastError === null ? '' : html` <span class="mute">${t.lastError}</span>`}</td>
<td>${timeText(t.lastPollAtMs)}</td><td>${timeText(t.nextPollAtMs)}</td><td>${t.consecutiveFailures}</td></tr>`,
  )}</tbody></table>
${ws.targets.length > 200 ? html`<p class="mute">${ws.targets.length - 200} more targets not shown.</p>` : ''}
</section>`;
}

/** Book and keyword targets link to their book page; the title (or campaign name) first, the id after it. */
function targetLink(workspace: string, id: string, name: string | null): SafeHtml {
  const label = name === null ? html`${id}` : html`${name} <span class="mute">${id}</span>`;
  const match = /^(?:book|keywords)\/([A-Z0-9]{10})\/([A-Z]{2})$/.exec(id);
  if (match === null) return label;
  return html`<a href="/books/${workspace}/${match[1]}/${match[2]}">${label}</a>`;
}

export function overviewPage(ctx: PageContext, status: StatusReport): string {
  const body = html`<p class="mute">As of ${timeText(status.generatedAtMs)} · <a href="/">Refresh</a> (the page stays still while you read it). Read from Redis only: the console spends no API requests.</p>
${status.workspaces.map(workspaceCards)}
<h2>Channels</h2>
<table><thead><tr><th scope="col">Channel</th><th scope="col">Type</th><th scope="col">State</th><th scope="col">Dead letters</th></tr></thead>
<tbody>${status.channels.map(
    (c) =>
      html`<tr><td>${c.id}</td><td>${c.type}</td><td>${
        c.disabledReason === null
          ? html`<span class="pill ok">enabled</span>`
          : html`<span class="pill disabled">disabled</span> <span class="mute">${c.disabledReason}</span>`
      }</td><td>${c.deadLetters > 0 ? html`<a href="/dead-letters?channel=${c.id}">${c.deadLetters}</a>` : '0'}</td></tr>`,
  )}</tbody></table>
<h2>Silences in force</h2>
${
  status.silences.current.length === 0
    ? html`<p class="mute">None.</p>`
    : html`<table><thead><tr><th scope="col">Matchers</th><th scope="col">State</th><th scope="col">Ends</th><th scope="col">Reason</th><th scope="col">Kept</th></tr></thead><tbody>${status.silences.current.map(
        (s) =>
          html`<tr><td class="text">${describeMatchers(s.matchers, s.bookTitles)}</td><td><span class="pill ${s.state}">${s.state}</span></td><td>${timeText(s.endsAt)}</td><td class="text">${s.reason}</td><td>${s.silenced}</td></tr>`,
      )}</tbody></table>`
}
<p class="mute">${status.silences.silencedLastDay} ${status.silences.silencedLastDay === 1 ? 'alert' : 'alerts'} silenced in the last 24 hours. Queues: poll ${queueText(status.queues.poll)}; deliver ${queueText(status.queues.deliver)} (<a href="/queues">details</a>).</p>`;
  return page('Overview', ctx, body);
}

/** `3 waiting, 1 active, 0 failed`: a queue's counts as words (they were raw JSON). */
function queueText(counts: Record<string, number | undefined>): string {
  const parts = Object.entries(counts).map(([state, n]) => `${n ?? 0} ${state}`);
  return parts.length === 0 ? 'empty' : parts.join(', ');
}
