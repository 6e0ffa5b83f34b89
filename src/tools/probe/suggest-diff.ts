/**
 * The suggestion against the user's contract file, line by line (`-` theirs, `+` suggested), with a
 * line of context around each change: what probe would change in their file, before they take it.
 * Pure; a longest-common-subsequence diff is plenty for files of a few hundred lines.
 */

type Op = { kind: ' ' | '-' | '+'; line: string };

function ops(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      (lcs[i] as number[])[j] =
        a[i] === b[j]
          ? ((lcs[i + 1] as number[])[j + 1] as number) + 1
          : Math.max((lcs[i + 1] as number[])[j] as number, (lcs[i] as number[])[j + 1] as number);
  const out: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ kind: ' ', line: a[i] as string });
      i++;
      j++;
    } else if (((lcs[i + 1] as number[])[j] as number) >= ((lcs[i] as number[])[j + 1] as number))
      out.push({ kind: '-', line: a[i++] as string });
    else out.push({ kind: '+', line: b[j++] as string });
  }
  while (i < n) out.push({ kind: '-', line: a[i++] as string });
  while (j < m) out.push({ kind: '+', line: b[j++] as string });
  return out;
}

/** The changed lines with one line of context, `…` between distant changes; empty when equal. */
export function lineDiff(before: string, after: string, context = 1): string {
  const strip = (text: string) =>
    text.split('\n').filter((line) => !/^\s*#/.test(line) && line.trim() !== '');
  const all = ops(strip(before), strip(after));
  if (all.every((op) => op.kind === ' ')) return '';
  const keep = all.map((_op, index) =>
    all.slice(Math.max(0, index - context), index + context + 1).some((near) => near.kind !== ' '),
  );
  const lines: string[] = [];
  let gap = false;
  all.forEach((op, index) => {
    if (!keep[index]) {
      gap = true;
      return;
    }
    if (gap && lines.length > 0) lines.push('  …');
    gap = false;
    lines.push(`${op.kind} ${op.line}`);
  });
  return `${lines.join('\n')}\n`;
}
