/** Markdown and number formatting for benchmark output. Locale-free, so output diffs cleanly. */

export function fmt(n: number, digits = 0): string {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'n/a' : n > 0 ? '∞' : '−∞';
  const fixed = Math.abs(n).toFixed(digits);
  const [whole = '0', frac] = fixed.split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const sign = n < 0 && Number(fixed) !== 0 ? '-' : '';
  return `${sign}${grouped}${frac === undefined ? '' : `.${frac}`}`;
}

/** `2.31×` */
export function times(ratio: number, digits = 2): string {
  return `${fmt(ratio, digits)}×`;
}

/** ms with a sensible number of digits: `0.412 ms`, `12.3 ms`, `1,204 ms`. */
export function ms(value: number): string {
  const digits = value < 1 ? 3 : value < 100 ? 1 : 0;
  return `${fmt(value, digits)} ms`;
}

/** A sim duration in ms as `42 s`, `17.5 min`, `3.2 h`. */
export function duration(value: number): string {
  const abs = Math.abs(value);
  if (abs < 120_000) return `${fmt(value / 1000, abs < 10_000 ? 1 : 0)} s`;
  if (abs < 7_200_000) return `${fmt(value / 60_000, 1)} min`;
  return `${fmt(value / 3_600_000, 2)} h`;
}

export function bytes(value: number): string {
  if (value < 10_000) return `${fmt(value)} B`;
  if (value < 10_000_000) return `${fmt(value / 1024, 1)} KiB`;
  return `${fmt(value / 1024 / 1024, 1)} MiB`;
}

export function percent(share: number, digits = 1): string {
  return `${fmt(share * 100, digits)}%`;
}

/** A markdown table; `align` holds 'l' or 'r' per column (default: first left, rest right). */
export function table(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  align?: string,
): string {
  const a = align ?? `l${'r'.repeat(Math.max(0, header.length - 1))}`;
  const rule = header.map((_, i) => (a[i] === 'r' ? '---:' : '---'));
  const line = (cells: readonly string[]) => `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(header), `|${rule.join('|')}|`, ...rows.map(line)].join('\n');
}

/** ✅ met, ❌ missed, blank when there is no goal. */
export function verdict(met: boolean | null | undefined): string {
  return met === true ? '✅' : met === false ? '❌' : '';
}
