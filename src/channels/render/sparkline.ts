/**
 * Sparklines: a series as one line of block characters, drawn so "up" always means "better".
 * Pure; plain text (each channel escapes for its own markup).
 */
import type { Alert } from '../../model/alert.ts';

const BARS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'] as const;
const TOP = BARS.length - 1;

export interface SparklineOptions {
  /**
   * Draw lower values taller. For ranks, where #1 is best: without it a book climbing from #50 to
   * #3 would be drawn as a fall. With it, "up" on screen always means "better".
   */
  invert?: boolean;
  /** Scale on log10: BSR is log-like (one sale moves #500,000 to #150,000), so a linear bar hides the top. */
  log?: boolean;
  /** Drawn for a missing point (null, not finite, or ≤ 0 on a log scale). */
  gap?: string;
}

export function sparkline(values: readonly (number | null)[], options: SparklineOptions = {}): string {
  const gap = options.gap ?? ' ';
  const scaled = values.map((v) => {
    if (v === null || !Number.isFinite(v)) return null;
    if (options.log !== true) return v;
    return v > 0 ? Math.log10(v) : null;
  });
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const v of scaled) {
    if (v === null) continue;
    min = Math.min(min, v);
    max = Math.max(max, v);
  }
  const span = max - min;
  return scaled
    .map((v) => {
      if (v === null) return gap;
      // A flat series is drawn mid-height: "no change", neither best nor worst.
      let level = span > 0 ? Math.round(((v - min) / span) * TOP) : TOP >> 1;
      if (options.invert === true && span > 0) level = TOP - level;
      return BARS[level] ?? gap;
    })
    .join('');
}

/** Rank kinds: their series are ranks (#1 best), drawn inverted; BSR also on a log scale. */
export function sparklineFor(alert: Alert): string | undefined {
  const series = alert.series;
  if (series === undefined || series.length < 2) return undefined;
  // A long window would crowd the message; the recent end is what the alert is about.
  const recent = series.slice(-48);
  const isBsr = alert.kind.startsWith('bsr_');
  const isRank = isBsr || alert.kind.startsWith('keyword_rank');
  return sparkline(recent, { invert: isRank, log: isBsr });
}
