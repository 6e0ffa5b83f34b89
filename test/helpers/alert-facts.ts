import type { Alert } from '../../src/model/alert.ts';

type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/**
 * Any fact of any kind, for tests that check the facts a rule produced. Renderers read facts
 * through the kind's own type; a test only compares values.
 */
export type AnyFacts = Partial<Intersection<Alert['facts']>>;

export function factsOf(alert: Alert): AnyFacts;
export function factsOf(alert: Alert | undefined): AnyFacts | undefined;
export function factsOf(alert: Alert | undefined): AnyFacts | undefined {
  return alert?.facts as AnyFacts | undefined;
}

/**
 * An alert as a fixture writes it: any kind with any facts, even of the wrong type (job data from an
 * older version, a hostile value): the renderers must cope with both.
 */
export type LooseAlert = Omit<Alert, 'kind' | 'facts'> & { kind: Alert['kind']; facts: object };

/** A fixture's alert, typed as the union the code takes. */
export function looseAlert(alert: LooseAlert): Alert {
  return alert as Alert;
}
