/** The one plain-text table layout: the CLI's tables and the plan command's. */

export type Align = 'left' | 'right';

/**
 * Columns padded to their widest cell, two spaces apart, a dashed rule under the header, trailing
 * spaces trimmed. Cells are printed as given: callers showing untrusted text clean it first.
 */
export function formatTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  align: readonly Align[] = [],
): string {
  const body = rows.map((row) => header.map((_, column) => row[column] ?? ''));
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
