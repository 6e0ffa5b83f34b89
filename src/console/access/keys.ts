/**
 * Every Redis key of console access, under the run's prefix: sessions (by the hash of their id, so
 * whoever reads Redis cannot sign in with what it finds) and the counters of failed sign-ins.
 */
export function accessKeys(prefix: string): {
  session: (idHash: string) => string;
  failures: (scope: string, keyHash: string) => string;
} {
  return {
    session: (idHash) => `${prefix}:access:session:${idHash}`,
    failures: (scope, keyHash) => `${prefix}:access:failures:${scope}:${keyHash}`,
  };
}
