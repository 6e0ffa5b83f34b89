/**
 * Output helpers shared by the operator commands (status, keywords, arc, dlq, test-alert): plain
 * tables, times and the choice of workspace. Locale-free, so output is the same on every machine
 * and can be compared in tests and bug reports.
 */
import type { ShelfwatchConfig, WorkspaceConfig } from '../config/schema.ts';
import { groupDigits } from '../rules/format.ts';
import { formatDuration } from '../util/duration.ts';
import { usageError } from './errors.ts';

export { groupDigits };

export type Align = 'left' | 'right';

/**
 * Columns padded to their widest cell, two spaces apart, a dashed rule under the header.
 * Cells are single lines: line breaks in untrusted text (error messages, titles) become spaces.
 */
export function formatTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  align: readonly Align[] = [],
): string {
  const clean = (cell: string) => cell.replace(/\s*[\r\n]+\s*/g, ' ');
  const body = rows.map((row) => header.map((_, column) => clean(row[column] ?? '')));
  const widths = header.map((title, column) =>
    Math.max(title.length, ...body.map((cells) => cells[column]?.length ?? 0)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => {
        const width = widths[column] ?? cell.length;
        return align[column] === 'right' ? cell.padStart(width) : cell.padEnd(width);
      })
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...body.map(line)].join('\n');
}

/** `2026-11-21T14:05:00Z`: UTC to the second, the form the API and the logs use. */
export function isoSecond(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/** `2026-11-21T14:05:00Z (in 12m)` / `(3m ago)`; `—` for never. */
export function whenText(ms: number | null, nowMs: number): string {
  if (ms === null) return '—';
  const delta = ms - nowMs;
  if (Math.abs(delta) < 1_000) return `${isoSecond(ms)} (now)`;
  const relative = delta > 0 ? `in ${formatDuration(delta)}` : `${formatDuration(-delta)} ago`;
  return `${isoSecond(ms)} (${relative})`;
}

/** `1 request`, `3 requests`, `1,200 requests`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${groupDigits(n)} ${n === 1 ? one : many}`;
}

/** Cuts one-line text for a table cell, marking the cut. */
export function cell(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, Math.max(0, max - 1))}…`;
}

export function printJson(value: unknown, write: (text: string) => void = (t) => process.stdout.write(t)) {
  write(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * The workspace a command acts for: `--workspace ID`, or the only one the config has. With several
 * and no flag, a usage error lists them, since guessing would spend the wrong workspace's budget.
 */
export function pickWorkspace(config: ShelfwatchConfig, id: string | undefined): WorkspaceConfig {
  const known = config.workspaces.map((ws) => ws.id).join(', ');
  if (id === undefined) {
    const [only, ...others] = config.workspaces;
    if (only !== undefined && others.length === 0) return only;
    throw usageError(`the config has several workspaces: pass --workspace (one of ${known})`);
  }
  const found = config.workspaces.find((ws) => ws.id === id);
  if (found === undefined)
    throw usageError(`--workspace: no workspace "${id}" in the config (known: ${known})`);
  return found;
}
