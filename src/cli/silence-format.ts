import { describeMatchers, type SilenceView } from '../silence/view.ts';
import { cell, formatTable, whenText } from './format.ts';

export { silenceViews } from '../silence/view.ts';

export function silenceTable(views: readonly SilenceView[], nowMs: number, timeZone = 'UTC'): string {
  if (views.length === 0) return 'no silences';
  const rows = views.map((v) => [
    v.id,
    v.state,
    cell(describeMatchers(v.matchers, v.bookTitles), 80),
    whenText(v.startsAt, nowMs, timeZone),
    whenText(v.endsAt, nowMs, timeZone),
    String(v.silenced),
    cell(v.reason, 50),
    cell(v.createdBy, 20),
  ]);
  return formatTable(['id', 'state', 'matchers', 'starts', 'ends', 'silenced', 'reason', 'by'], rows, [
    'left',
    'left',
    'left',
    'left',
    'left',
    'right',
  ]);
}
