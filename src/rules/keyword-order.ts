import type { KeywordRank, Observation } from '../model/observation.ts';

/**
 * A keywords observation in the stored snapshot's keyword order: keywords the stored list has
 * keep its order, new ones follow in the answer's order (duplicates keep theirs). The API orders
 * keywords by traffic share, which moves with the ranks; stored as answered, every reshuffle would
 * write a new keyword dictionary (~25 KB for 1,000 keywords, kept until its TTL) and the rules
 * would pair the lists by name instead of by index. Other kinds, a first poll and an answer already
 * in the stored order (the usual case) come back as they are.
 */
export function inStoredOrder(stored: Observation | undefined, next: Observation): Observation {
  if (next.kind !== 'keywords' || stored?.kind !== 'keywords') return next;
  const before = stored.ranks;
  const after = next.ranks;
  if (sameOrder(before, after)) return next;
  const position = new Map<string, number>();
  for (let i = before.length - 1; i >= 0; i--) position.set(before[i]!.keyword, i);
  const known: { at: number; rank: KeywordRank }[] = [];
  const fresh: KeywordRank[] = [];
  for (const rank of after) {
    const at = position.get(rank.keyword);
    if (at === undefined) fresh.push(rank);
    else known.push({ at, rank });
  }
  // Array.prototype.sort is stable: duplicates of one keyword keep the answer's order.
  known.sort((a, b) => a.at - b.at);
  const ranks = known.map((k) => k.rank);
  for (const rank of fresh) ranks.push(rank);
  return { ...next, ranks };
}

function sameOrder(before: readonly KeywordRank[], after: readonly KeywordRank[]): boolean {
  if (before.length !== after.length) return false;
  for (let i = 0; i < after.length; i++) if (before[i]!.keyword !== after[i]!.keyword) return false;
  return true;
}
