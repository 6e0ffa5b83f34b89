/**
 * The one registry of alert kinds: every family's kinds with their labels and rendering parts.
 * `satisfies KindTable` (a `Record<AlertKind, …>` whose entry for each kind takes that kind's
 * facts) makes a kind added to the model's union without its parts, or parts reading a fact the
 * kind does not have, a compile error. Adding a kind: docs/development.md, "Adding an alert kind".
 */
import type { AlertKind } from '../model/alert.ts';
import { bsrKinds } from './bsr.ts';
import { compKinds } from './comps.ts';
import { keywordKinds } from './keyword-rank.ts';
import type { KindParts, KindTable } from './kind-parts.ts';
import { reviewKinds } from './reviews.ts';
import { salesKinds } from './sales.ts';
import { sentimentKinds } from './sentiment.ts';
import { sourceHealthKinds } from './source-health.ts';

export const KINDS = {
  ...keywordKinds,
  ...bsrKinds,
  ...reviewKinds,
  ...compKinds,
  ...sentimentKinds,
  ...salesKinds,
  ...sourceHealthKinds,
} satisfies KindTable;

const TABLE: KindTable = KINDS;

/** The parts of one kind, typed by it: `partsOf(alert.kind).rows(alert, zone)`. */
export function partsOf<K extends AlertKind>(kind: K): KindParts<K> {
  return TABLE[kind];
}

export type { FactRow, KindParts } from './kind-parts.ts';
