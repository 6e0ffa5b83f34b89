/** The planner's verdict as the cadence form shows it, before and after "Check the plan". */
import { formatDuration } from '../../util/duration.ts';
import { html, numberText, type SafeHtml } from '../html.ts';
import type { PlanPreview } from '../plan-preview.ts';

export function planSection(plan: PlanPreview, heading = 'The plan as saved'): SafeHtml {
  return html`<div class="card" aria-live="polite">
<h3>${heading}</h3>
<p class="verdict ${plan.fits ? 'fits' : 'over'}"><strong>${plan.fits ? 'Fits the budget' : 'Does NOT fit the budget'}</strong>${plan.verdict === '' ? '' : html`: ${plan.verdict}`}</p>
<ul>
<li>Requests a month: <strong>${numberText(plan.perMonth)}</strong> of ${numberText(plan.quota)}</li>
<li>Per-minute peak: <strong>${numberText(plan.perMinutePeak)}</strong> (limit ${numberText(plan.perMinute)} a minute)</li>
</ul>
<details><summary>Each target's cadence</summary><ul>${plan.rows.map(
    (row) =>
      html`<li class="wrap">${row.id}: every ${formatDuration(row.cadenceMs)}${row.overridden ? ' (fixed)' : ''}, ${numberText(row.requestsPerMonth)} a month</li>`,
  )}</ul></details>
</div>`;
}
