import { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS } from './time-units.ts';

const UNIT_MS: Record<string, number> = { ms: 1, s: SECOND_MS, m: MINUTE_MS, h: HOUR_MS, d: DAY_MS };

/**
 * Parses durations as people write them in config: `90s`, `5m`, `1h30m`, `2d`, or a bare number of
 * milliseconds. Returns undefined when the text is not a duration, so callers can say what was wrong.
 */
export function parseDuration(text: string | number): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) && text >= 0 ? text : undefined;
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== trimmed) return undefined;
  let total = 0;
  for (const [, amount, unit] of parts) total += Number(amount) * (UNIT_MS[unit ?? ''] ?? Number.NaN);
  return Number.isFinite(total) ? Math.round(total) : undefined;
}

/** `5400000` → `1h 30m`; for plans, status output and logs. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  const parts: string[] = [];
  let rest = Math.round(ms / 1_000);
  for (const [unit, seconds] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    if (rest >= seconds) {
      parts.push(`${Math.floor(rest / seconds)}${unit}`);
      rest %= seconds;
    }
  }
  return parts.slice(0, 2).join(' ');
}

/**
 * `19200000` → `5 h 20 min`: for messages people read, where `5h 20m` looks like config. The two
 * largest units, rounded down to the minute past an hour ("under a minute" below one).
 */
export function spokenDuration(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / MINUTE_MS);
  if (minutes < 1) return 'under a minute';
  const days = Math.floor(minutes / 1_440);
  const hours = Math.floor((minutes % 1_440) / 60);
  const mins = minutes % 60;
  if (days > 0) return hours > 0 ? `${days} d ${hours} h` : `${days} d`;
  if (hours > 0) return mins > 0 ? `${hours} h ${mins} min` : `${hours} h`;
  return `${mins} min`;
}
