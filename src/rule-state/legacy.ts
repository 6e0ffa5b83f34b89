import type { Observation } from '../model/observation.ts';
import type { ConditionState } from './condition.ts';
import { allocColumns, findRepeats, type KeywordColumns, writeEntry } from './keyword-state.ts';
import type { RuleState } from './shapes.ts';

/**
 * A stored rule state that cannot be read: corrupt bytes, an unknown version, columns that do not
 * fit the observation stored with them. The poller never guesses what was lost (that could alert
 * twice or invent an episode): it keeps what can be read and judges the rest with fresh conditions
 * from the stored observation (`salvageRuleState`), and raises a health alert.
 */
export class RuleStateDecodeError extends Error {
  override readonly name = 'RuleStateDecodeError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A rule state that cannot be encoded (columns handed in with another observation): a bug upstream. */
export class RuleStateEncodeError extends Error {
  override readonly name = 'RuleStateEncodeError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * Kept until no record of the JSON form can be left: the byte form replaced it on 2026-11-22
 * (45f4876), a record is rewritten at its target's next poll, and one never rewritten expires with
 * its snapshot (DEFAULT_TTL_MS, 45 days after its last write), so not before 2027-01-06 and later
 * for a deployment upgraded after that day. When it goes, the two error classes above move to
 * codec.ts.
 *
 * The state the previous version stored as JSON (record flag 1): `{conditions}` keyed
 * `ruleId|subject`, keyword conditions keyed `ruleId|asin|marketplace|keyword`. Keyword conditions
 * move into columns aligned with the observation stored with them, the rest stay keyed; every
 * condition keeps every field, so a firing keyword stays firing in the same episode (no second
 * alert after an upgrade). Rule ids cannot contain `|` (config schema), nor can ASINs or
 * marketplaces, so the first `|` ends the rule id and the keyword is everything after
 * `|asin|marketplace|`, `|` or not.
 */
export function migrateLegacyState(
  value: unknown,
  observation: Observation,
  /** When given, a malformed condition is reported here and left out instead of failing the rest. */
  onLoss?: (error: RuleStateDecodeError) => void,
): RuleState {
  if (!isRecord(value) || !isRecord(value.conditions)) {
    throw new RuleStateDecodeError('legacy rule state has no conditions object');
  }
  const conditions: [string, ConditionState][] = [];
  const byRule = new Map<string, Map<string, ConditionState>>();
  const infix = observation.kind === 'keywords' ? `|${observation.asin}|${observation.marketplace}|` : null;
  for (const [key, raw] of Object.entries(value.conditions)) {
    const condition = legacyCondition(raw);
    if (condition === undefined) {
      const error = new RuleStateDecodeError(`legacy condition ${key} is malformed`);
      if (onLoss === undefined) throw error;
      onLoss(error);
      continue;
    }
    const bar = key.indexOf('|');
    if (infix === null || bar <= 0 || !key.startsWith(infix, bar)) {
      conditions.push([key, condition]);
      continue;
    }
    const ruleId = key.slice(0, bar);
    let keywords = byRule.get(ruleId);
    if (keywords === undefined) {
      keywords = new Map();
      byRule.set(ruleId, keywords);
    }
    keywords.set(key.slice(bar + infix.length), condition);
  }
  const state: RuleState = { conditions: Object.fromEntries(conditions) };
  if (observation.kind !== 'keywords' || byRule.size === 0) return state;
  const ranks = observation.ranks;
  const repeatOf = findRepeats(ranks);
  const rules = new Map<string, KeywordColumns>();
  for (const [ruleId, keywords] of byRule) {
    const columns = allocColumns(ranks.length);
    for (let i = 0; i < ranks.length; i++) {
      // A repeated keyword had one condition, kept at its first occurrence as the engine does.
      if (repeatOf !== null && repeatOf[i]! >= 0) continue;
      const condition = keywords.get(ranks[i]!.keyword);
      if (condition !== undefined) writeEntry(columns, i, condition);
    }
    rules.set(ruleId, columns);
  }
  state.keywords = {
    asin: observation.asin,
    marketplace: observation.marketplace,
    ranks,
    repeatOf,
    rules,
  };
  return state;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A copy of a stored condition with exactly its phase's fields, or undefined when one is missing. */
function legacyCondition(raw: unknown): ConditionState | undefined {
  if (!isRecord(raw)) return undefined;
  const { phase, baseline, baselineAt, clearAt } = raw;
  const num = (v: unknown): v is number => typeof v === 'number';
  if (!(baseline === null || num(baseline)) || !num(baselineAt) || !num(clearAt)) return undefined;
  if (phase === 'clear') return { phase, baseline, baselineAt, clearAt };
  if (phase === 'pending') {
    return num(raw.count) ? { phase, baseline, baselineAt, clearAt, count: raw.count } : undefined;
  }
  if (phase !== 'firing') return undefined;
  const { firedAt, lastNotifiedAt, repeatCount } = raw;
  if (!num(firedAt) || !num(lastNotifiedAt) || !num(repeatCount)) return undefined;
  const firing = { phase, baseline, baselineAt, clearAt, firedAt, lastNotifiedAt, repeatCount } as const;
  // The JSON form predates the low point, but a condition that has one keeps it: JSON writes an
  // unranked low point (Infinity) as null.
  const { worst } = raw;
  if (num(worst)) return { ...firing, worst };
  return worst === null ? { ...firing, worst: Number.POSITIVE_INFINITY } : firing;
}
