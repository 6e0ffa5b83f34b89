/**
 * The one reading of a Retry-After header (RFC 9110 §10.2.3), for the API's answers and the
 * channels' alike: delta-seconds (`120`) or an HTTP-date (`Sat, 21 Nov 2026 14:01:30 GMT`), the
 * first value when the header came twice, as the wait in ms from `nowMs`. A date already past is 0.
 * Anything else is unreadable and gives undefined, so the caller falls back to its own wait:
 * `-5`, `1.5` (delta-seconds are whole), `soon`, and an ISO date that Date.parse would guess at
 * (every HTTP-date form starts with a day name).
 */
export function parseRetryAfterMs(
  value: string | readonly string[] | undefined,
  nowMs: number = Date.now(),
): number | undefined {
  const raw = (typeof value === 'string' ? value : value?.[0])?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (/^\d+$/.test(raw)) return Number(raw) * 1000;
  if (!/^[A-Za-z]{3}/.test(raw)) return undefined;
  const at = Date.parse(raw);
  return Number.isFinite(at) ? Math.max(0, at - nowMs) : undefined;
}
