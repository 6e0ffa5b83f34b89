import { type Silence, type SilenceMatchers, type SilenceState, silenceState } from './silence.ts';

/** A silence as `silence list`, `status` (and the console) show it: its state and what it kept. */
export interface SilenceView extends Silence {
  state: SilenceState;
  /** Alerts it kept back, counted once per channel. */
  silenced: number;
  /** Titles of the books its `asin` matcher names, where known (by ASIN). */
  bookTitles?: Record<string, string>;
}

export function silenceViews(
  silences: readonly Silence[],
  hits: ReadonlyMap<string, number>,
  nowMs: number,
  /** Book titles by ASIN (from the book snapshots), to name the books a silence matches. */
  titles: ReadonlyMap<string, string> = new Map(),
): SilenceView[] {
  return silences.map((s) => {
    const named = (s.matchers.asin ?? []).flatMap((asin) => {
      const title = titles.get(asin);
      return title === undefined ? [] : [[asin, title] as const];
    });
    return {
      ...s,
      state: silenceState(s, nowMs),
      silenced: hits.get(s.id) ?? 0,
      ...(named.length === 0 ? {} : { bookTitles: Object.fromEntries(named) }),
    };
  });
}

/** `asin=“Tide Lines” (B0…),B0… kind=review_new`; a snooze shows as its rule and "one condition". */
export function describeMatchers(m: SilenceMatchers, titles: Readonly<Record<string, string>> = {}): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(m)) {
    if (value === undefined || name === 'condition') continue;
    if (name === 'asin' && Array.isArray(value)) {
      const books = value.map((asin) => (titles[asin] === undefined ? asin : `“${titles[asin]}” (${asin})`));
      parts.push(`asin=${books.join(',')}`);
      continue;
    }
    parts.push(`${name}=${Array.isArray(value) ? value.join(',') : String(value)}`);
  }
  if (m.condition !== undefined) parts.push('one condition (snooze)');
  return parts.join(' ');
}
