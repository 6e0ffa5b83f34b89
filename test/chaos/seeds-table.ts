/**
 * The seeds table of docs/reliability.md: one row per saved chaos run (one file per seed in
 * .artifacts/chaos/), read back from the figures table that renderFigures (report.ts) wrote, so
 * the page shows every seed that was run and not only the last one.
 */
import { HEALTHY_CHANNELS } from './deliveries.ts';

/** `| key | value |` rows of a figures file; a channel row's value keeps its inner ` | `. */
function rows(figures: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of figures.split('\n')) {
    const match = /^\| (.+?) \| (.+) \|$/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) out.set(match[1], match[2]);
  }
  return out;
}

/** The part of a value before its parenthesised detail: `81.2 s (11 gaps over 30 s)` → `81.2 s`. */
const head = (value: string | undefined): string => value?.split(' (')[0]?.trim() ?? '—';

function verdict(figures: string): string {
  const lines = figures.trimEnd().split('\n');
  if (lines.at(-1) === 'All checks passed.') return 'passed';
  const failed = lines.filter((l) => l.startsWith('- ')).length;
  return failed === 0 ? '—' : `**failed** (${failed} checks)`;
}

/** One run's row: seed, when and how long, verdict, deliveries, duplicates, plan, gaps, start-up. */
export function seedRow(figures: string): string {
  const r = rows(figures);
  const channels = HEALTHY_CHANNELS.map((name) => (r.get(name) ?? '').split(' | '));
  // Channel columns: expected | delivered | duplicates "N (I in window, O outside)" | losses | invented.
  const delivered = channels.map((c) => `${c[1] ?? '?'}/${c[0] ?? '?'}`).join(' · ');
  const sum = (pick: (c: string[]) => number): number => channels.reduce((n, c) => n + pick(c), 0);
  const inWindow = sum((c) => Number(/(\d+) in window/.exec(c[2] ?? '')?.[1] ?? 0));
  const outside = sum((c) => Number(/(\d+) outside/.exec(c[2] ?? '')?.[1] ?? 0));
  const lost = sum((c) => Number(c[3] ?? 0));
  const invented = sum((c) => Number(c[4] ?? 0));
  const run = r.get('run')?.split(' in all')[0] ?? '—';
  const cells = [
    head(r.get('seed')),
    run,
    verdict(figures),
    delivered,
    `${lost} / ${invented}`,
    `${inWindow} / ${outside}`,
    head(r.get('max API requests in any 60 s')),
    head(r.get('longest gap between two polls of a target')),
    head(r.get('worker start-up (spawn to running)')),
  ];
  return `| ${cells.join(' | ')} |`;
}

export function seedsTable(runs: readonly string[]): string {
  return [
    '| seed | run (start, length) | checks | delivered (Slack · email · log) | lost / invented | duplicates in / outside the window | max API requests in any 60 s (limit 60) | longest poll gap | worker start-up |',
    '|---|---|---|---|---|---|---|---|---|',
    ...runs.map(seedRow),
  ].join('\n');
}
