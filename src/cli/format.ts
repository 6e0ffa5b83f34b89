/**
 * Output helpers shared by the operator commands (status, keywords, arc, dlq, test-alert): plain
 * tables, times and the choice of workspace. Locale-free, so output is the same on every machine
 * and can be compared in tests and bug reports.
 */
import { BIDI_CONTROLS, stripBidi } from '../util/bidi.ts';
import { formatDuration } from '../util/duration.ts';
import { groupDigits } from '../util/format.ts';
import { type Align, formatTable as layOutTable } from '../util/table.ts';
import { zonedParts } from '../util/zoned-time.ts';

export type { Align };
export { groupDigits };

/**
 * Terminal escape sequences (CSI such as "clear screen", OSC such as hyperlinks and window titles,
 * in their 7-bit and 8-bit forms), removed whole so no parameter text is left behind.
 */
const ESCAPE_SEQUENCE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|(?:\u001b\]|\u009d)[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[@-Z\\-_]?/g;
/**
 * What is left that a terminal would act on rather than print: C0 controls but tab and line feed,
 * DEL and C1 controls. (Bidirectional controls, which make text read differently than it is,
 * "Trojan Source", go through `stripBidi` like everywhere text leaves.)
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const CONTROL_CHARACTER = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Untrusted text (API error messages, titles, reasons read back from Redis) made safe to print:
 * escape sequences and control characters are removed, so a message cannot clear the screen,
 * move the cursor, retitle the window or plant a hyperlink. Tabs and line feeds stay.
 */
export function terminalText(text: string): string {
  return stripBidi(text.replace(/\r\n?/g, '\n').replace(ESCAPE_SEQUENCE, '').replace(CONTROL_CHARACTER, ''));
}

/** One table cell: terminal-safe, on one line (line breaks and tabs in untrusted text become spaces). */
function tableCell(text: string): string {
  return terminalText(text).replace(/\s*[\n\t\u2028\u2029]+\s*/g, ' ');
}

/**
 * Columns padded to their widest cell, two spaces apart, a dashed rule under the header.
 * Every cell goes through `tableCell`: one line, no escape sequences or control characters.
 */
export function formatTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  align: readonly Align[] = [],
): string {
  const cleanRows = rows.map((row) => header.map((_, column) => tableCell(row[column] ?? '')));
  return layOutTable(header.map(tableCell), cleanRows, align);
}

/** `2026-11-21T14:05:00Z`: UTC to the second, the form the API and the logs use. */
export function isoSecond(ms: number, timeZone = 'UTC'): string {
  const utc = new Date(ms).toISOString();
  if (timeZone === 'UTC') return `${utc.slice(0, 19)}Z`;
  // The local wall clock with its offset (ISO 8601): `2026-11-21T15:05:00+01:00`.
  const p = zonedParts(ms, timeZone);
  const wallMs = Date.UTC(
    Number(p.year),
    Number(p.month) - 1,
    Number(p.day),
    Number(p.hour),
    Number(p.minute),
  );
  const offset = Math.round((wallMs - Math.floor(ms / 60_000) * 60_000) / 60_000);
  const two = (n: number) => String(n).padStart(2, '0');
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${utc.slice(17, 19)}${sign}${two(Math.floor(abs / 60))}:${two(abs % 60)}`;
}

/** `2026-11-21T14:05:00Z (in 12m)` / `(3m ago)`, in `timeZone` (UTC by default); `—` for never. */
export function whenText(ms: number | null, nowMs: number, timeZone = 'UTC'): string {
  if (ms === null) return '—';
  const delta = ms - nowMs;
  if (Math.abs(delta) < 1_000) return `${isoSecond(ms, timeZone)} (now)`;
  const relative = delta > 0 ? `in ${formatDuration(delta)}` : `${formatDuration(-delta)} ago`;
  return `${isoSecond(ms, timeZone)} (${relative})`;
}

/** `1 request`, `3 requests`, `1,200 requests`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${groupDigits(n)} ${n === 1 ? one : many}`;
}

/** Cuts one-line, terminal-safe text for a table cell, marking the cut. */
export function cell(text: string, max: number): string {
  const flat = terminalText(text).replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, Math.max(0, max - 1))}…`;
}

/**
 * Characters JSON.stringify leaves as they are but a terminal acts on (it escapes only C0). They can
 * only occur inside JSON strings, so escaping them keeps the JSON equal to the data.
 */
const JSON_UNSAFE = new RegExp(`[\\u007f-\\u009f\\u2028\\u2029${BIDI_CONTROLS}]`, 'g');

/** `value` as indented JSON, terminal-safe, on `out` (a command's stdout). */
export function printJson(value: unknown, out: { write(text: string): unknown }) {
  const text = JSON.stringify(value, null, 2).replace(
    JSON_UNSAFE,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  out.write(`${text}\n`);
}
