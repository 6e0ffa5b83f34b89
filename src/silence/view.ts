import { type Silence, type SilenceMatchers, type SilenceState, silenceState } from './silence.ts';

/** A silence as `silence list`, `status` (and the console) show it: its state and what it kept. */
export interface SilenceView extends Silence {
  state: SilenceState;
  /** Alerts it kept back, counted once per channel. */
  silenced: number;
}

export function silenceViews(
  silences: readonly Silence[],
  hits: ReadonlyMap<string, number>,
  nowMs: number,
): SilenceView[] {
  return silences.map((s) => ({ ...s, state: silenceState(s, nowMs), silenced: hits.get(s.id) ?? 0 }));
}

/** `asin=B0…,B0… kind=review_new`; a snooze shows as its rule and "one condition". */
export function describeMatchers(m: SilenceMatchers): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(m)) {
    if (value === undefined || name === 'condition') continue;
    parts.push(`${name}=${Array.isArray(value) ? value.join(',') : String(value)}`);
  }
  if (m.condition !== undefined) parts.push('one condition (snooze)');
  return parts.join(' ');
}
