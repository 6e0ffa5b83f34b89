/**
 * CSV cells for exports people open in spreadsheets (RFC 4180: comma, CRLF, a cell with a comma,
 * quote or line break in quotes, quotes doubled). A text cell a spreadsheet would read as a formula
 * (starting with `=`, `+`, `-`, `@`, a tab or a carriage return, after any leading spaces) gets a
 * leading `'`, which spreadsheets show as text; numbers we produce are written as they are.
 */

export type Cell = string | number | null;

const FORMULA_START = /^[\s]*[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(cell: Cell): string {
  if (cell === null) return '';
  if (typeof cell === 'number') return Number.isFinite(cell) ? String(cell) : '';
  const text = FORMULA_START.test(cell) ? `'${cell}` : cell;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvLine(cells: readonly Cell[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}
