/**
 * The registry says which alert kinds are about a rank and how they leave it: the console's book
 * page marks BSR alerts on the BSR chart and reads a keyword's condition from its latest keyword
 * alert through `rankEffectOf`, not by spelling kind names.
 */
import { describe, expect, it } from 'vitest';
import { ALERT_KINDS } from '../../src/model/alert.ts';
import { rankEffectOf } from '../../src/rules/kinds.ts';

describe('rankEffectOf', () => {
  it('names the rank of each rank kind and the state it leaves; no other kind claims one', () => {
    const effects = Object.fromEntries(
      ALERT_KINDS.flatMap((kind) => {
        const effect = rankEffectOf(kind);
        return effect === undefined ? [] : [[kind, `${effect.of} ${effect.leaves}`]];
      }),
    );
    expect(effects).toEqual({
      keyword_rank_drop: 'keyword down',
      keyword_rank_recovered: 'keyword clear',
      bsr_worsened: 'bsr down',
      bsr_recovered: 'bsr clear',
      bsr_removed: 'bsr down',
      bsr_restored: 'bsr clear',
    });
  });
});
