/**
 * Lengths of time in ms: the one copy every room uses. A day is 24 hours, as in epoch ms (UTC has
 * no summer time); a day in a time zone is `zoned-time.ts`' business.
 */
export const SECOND_MS = 1_000;
export const MINUTE_MS = 60 * SECOND_MS;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;
