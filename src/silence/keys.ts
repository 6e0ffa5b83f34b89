/**
 * Every Redis key of silences, under the run's prefix: the silences, the log of silenced alerts,
 * their details and hit counts. Stored data is read back by these exact strings: do not change them.
 */
export function silenceKeys(prefix: string): {
  silences: string;
  log: string;
  details: string;
  hits: string;
  /** A mute link's nonce once used (`mute-apply.ts`): kept until the link expires. */
  linkUsed: (nonce: string) => string;
} {
  return {
    linkUsed: (nonce) => `${prefix}:silences:link-used:${nonce}`,
    silences: `${prefix}:silences`,
    log: `${prefix}:silenced`,
    details: `${prefix}:silenced:alerts`,
    hits: `${prefix}:silenced:hits`,
  };
}
