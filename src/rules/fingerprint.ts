import { createHash } from 'node:crypto';
import type { AlertKind, AlertSubject } from '../model/alert.ts';

export interface FingerprintParts {
  workspace: string;
  ruleId: string;
  kind: AlertKind;
  subject: AlertSubject;
  /** What makes this occurrence: an episode start, a review id, a date plus new values, … */
  observation: string;
}

/**
 * A positional JSON array, with the subject's keys sorted and absent members dropped, so
 * `{asin, keyword}` and `{keyword, asin}` (or a subject with an undefined optional field) encode
 * the same way in every process. Positional, because the shape is fixed: no key sorting to do for it.
 */
export function canonicalEncoding(parts: FingerprintParts): string {
  const subject: [string, string][] = [];
  for (const key of Object.keys(parts.subject).sort()) {
    const value = parts.subject[key as keyof AlertSubject];
    if (value !== undefined) subject.push([key, value]);
  }
  return JSON.stringify([1, parts.workspace, parts.ruleId, parts.kind, subject, parts.observation]);
}

/** sha256 over the canonical encoding, first 32 hex chars (128 bits: collisions are not a concern). */
export function fingerprint(parts: FingerprintParts): string {
  return createHash('sha256').update(canonicalEncoding(parts)).digest('hex').slice(0, 32);
}
