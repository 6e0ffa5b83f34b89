/**
 * A size estimate, not a format: how many bytes the keyword rule state of one snapshot would take
 * as columns aligned with the keyword dictionary (one entry per keyword, in snapshot order, no key
 * strings) instead of JSON keyed by `ruleId|asin|marketplace|keyword`. Lossless for the
 * keyword_rank_drop conditions: phase, baseline, times as varint deltas from the commit time.
 * Used by the memory benchmark to size the fix it proposes for src/.
 */
import type { KeywordsObservation } from '../../src/model/observation.ts';
import type { ConditionState, RuleState } from '../../src/rules/engine.ts';
import { ByteWriter, zigzag } from '../../src/snapshot/bytes.ts';

export function columnarStateBytes(
  state: RuleState,
  o: KeywordsObservation,
  ruleIds: readonly string[],
): number {
  const w = new ByteWriter(o.ranks.length * 8 + 64);
  const at = o.observedAt;
  const delta = (ms: number) => w.uvarint(zigzag(at - ms));
  for (const ruleId of ruleIds) {
    w.str(ruleId);
    const prefix = `${ruleId}|${o.asin}|${o.marketplace}|`;
    for (const { keyword } of o.ranks) {
      const c: ConditionState | undefined = state.conditions[prefix + keyword];
      if (c === undefined) {
        w.u8(0);
        continue;
      }
      w.u8(c.phase === 'clear' ? 1 : c.phase === 'pending' ? 2 : 3);
      w.uvarint(c.baseline === null ? 0 : c.baseline + 1);
      delta(c.baselineAt);
      delta(c.clearAt);
      if (c.phase === 'pending') w.uvarint(c.count);
      if (c.phase === 'firing') {
        delta(c.firedAt);
        delta(c.lastNotifiedAt);
        w.uvarint(c.repeatCount);
      }
    }
  }
  return w.finish().length;
}
