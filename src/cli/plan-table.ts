/**
 * Plain-text rendering of a plan for the `plan` command. Locale-free number formatting, so the
 * output is the same on every machine (and diffable in tests and bug reports).
 */
import { type Plan, planVerdict } from '../budget/planner.ts';
import { formatDuration } from '../util/duration.ts';
import { type Align, formatTable } from '../util/table.ts';

/** `1234567` → `1,234,567`. */
function grouped(value: number): string {
  const sign = value < 0 ? '-' : '';
  return sign + String(Math.abs(Math.round(value))).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function percent(share: number): string {
  return `${(share * 100).toFixed(2)}%`;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function cost(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

/** `names`: what people call each target (status.ts's `targetNames`), shown first when known. */
export function formatPlanTable(plan: Plan, names: ReadonlyMap<string, string> = new Map()): string {
  // A title column only when some target has a name (offline, only named campaigns do).
  const titled = plan.rows.some((row) => names.has(row.id));
  const header = [
    ...(titled ? ['title'] : []),
    'target',
    'kind',
    'req/poll',
    'cadence',
    'req/month',
    'share',
  ];
  const align: Align[] = [
    ...(titled ? (['left'] as const) : []),
    'left',
    'left',
    'right',
    'left',
    'right',
    'right',
  ];
  const body = plan.rows.map((row) => [
    ...(titled ? [cut(names.get(row.id) ?? '', 40)] : []),
    row.id,
    row.kind,
    cost(row.costPerPoll),
    formatDuration(row.cadenceMs) + (row.overridden ? ' (set)' : ''),
    grouped(row.requestsPerMonth),
    percent(row.shareOfQuota),
  ]);
  const lines = [formatTable(header, body, align)];
  if (plan.rows.length === 0) lines.push('(no targets)');
  const footer: [string, string][] = [
    ['plannable budget', `${grouped(plan.plannableBudget)} requests (rest of this month, reserve kept)`],
    ['projected use', `${grouped(plan.projectedUse)} requests to the end of the month`],
    ['headroom', `${grouped(plan.headroom)} requests`],
    ['per-minute peak', `${grouped(plan.perMinutePeak)} requests if every poll falls in one minute`],
    ['fits', plan.fits ? 'yes' : `NO: ${planVerdict(plan)}`],
  ];
  const labelWidth = Math.max(...footer.map(([label]) => label.length));
  lines.push('', ...footer.map(([label, value]) => `${label.padEnd(labelWidth)}  ${value}`));
  const sources = plan.rows.filter((row) => row.keywordSource !== undefined);
  if (sources.length > 0) {
    lines.push('', 'keyword sources (requests a month to judge every hour, at the planned cadence):');
    for (const row of sources) {
      const { chosen, seriesPerMonth, snapshotPerMonth } = row.keywordSource!;
      lines.push(
        `  ${row.id}  ${chosen}  (series ${grouped(seriesPerMonth)}, snapshots ${grouped(snapshotPerMonth)})`,
      );
    }
  }
  if (plan.warnings.length > 0) lines.push('', 'warnings:', ...plan.warnings.map((w) => `  - ${w}`));
  return `${lines.join('\n')}\n`;
}
