/**
 * Diff: the project's diff step (`diffKeywords`, src/rules/diff.ts) on two consecutive
 * 1,000-keyword observations, against microdiff and jsondiffpatch on the same two objects, plus a
 * hand-written keyed rank comparison as the floor of "pair keywords by name and compare ranks".
 * `evaluate` (default rules, steady-state rule state) is reported alongside: the rules on top of
 * the diff, not a diff.
 *
 * The two observations share no string: the previous one comes back from the store (keywords from
 * the dictionary), the next from `JSON.parse` of the answer, so equal keywords are equal strings
 * in different objects, as in the poller. The rule state is the one the store gives back with the
 * previous observation (encoded, then decoded against it).
 *
 * Not all the same work: microdiff and jsondiffpatch report paths and deltas of any JSON; the diff
 * step pairs the two keyword lists (by index when the order is the same, by name otherwise) and
 * lists typed changes (rank changed, keyword appeared, keyword left); `evaluate` also judges every
 * keyword against its stored condition, builds the next rule state, and formats and fingerprints
 * (SHA-256) the alerts.
 */
import * as jsondiffpatch from 'jsondiffpatch';
import microdiff from 'microdiff';
import type { KeywordsObservation } from '../src/model/observation.ts';
import { decodeRuleState, encodeRuleState } from '../src/rule-state/index.ts';
import { defaultRules } from '../src/rules/config.ts';
import { diffKeywords } from '../src/rules/diff.ts';
import { evaluate, type RuleState } from '../src/rules/engine.ts';
import type { BenchContext, BenchResult } from './lib/context.ts';
import { fmt, table, times } from './lib/format.ts';
import { benchAsin, keywordList, nextSnapshot } from './lib/keywords.ts';
import { medianRatio, spread, timeSync } from './lib/stats.ts';

const KEYWORDS = 1000;
const GOAL = 10;
const DIFF = 'diff step (diffKeywords)';

interface Pair {
  prev: KeywordsObservation;
  next: KeywordsObservation;
  state: RuleState;
}

/** A copy sharing no object (and no string) with the original. */
const reread = (o: KeywordsObservation): KeywordsObservation => JSON.parse(JSON.stringify(o));

export async function run(ctx: BenchContext): Promise<BenchResult> {
  const rules = defaultRules();
  const pairs: Pair[] = Array.from({ length: 8 }, (_, i) => {
    const base = keywordList(2000 + i, KEYWORDS, benchAsin(100 + i));
    // A few polls first, so the rule state holds pending and firing conditions, not just baselines.
    let prev = base;
    let state: RuleState | undefined;
    for (let k = 1; k <= 6; k++) {
      const next = nextSnapshot(base, prev, i * 100 + k);
      state = evaluate(ruleCtx(next), rules, k === 1 ? undefined : prev, next, state).state;
      prev = next;
    }
    const stored = reread(prev);
    return {
      prev: stored,
      next: reread(nextSnapshot(base, prev, i * 100 + 7)),
      state: decodeRuleState(encodeRuleState(state!, prev), stored)!,
    };
  });
  const differ = jsondiffpatch.create({
    objectHash: (item: object) => (item as { keyword?: string }).keyword ?? JSON.stringify(item),
  });
  let i = 0;
  const pick = () => pairs[i++ % pairs.length]!;
  const fns = {
    [DIFF]: () => {
      const p = pick();
      return diffKeywords(p.prev.ranks, p.next.ranks);
    },
    evaluate: () => {
      const p = pick();
      return evaluate(ruleCtx(p.next), rules, p.prev, p.next, p.state);
    },
    microdiff: () => {
      const p = pick();
      return microdiff(p.prev, p.next);
    },
    jsondiffpatch: () => {
      const p = pick();
      return differ.diff(p.prev, p.next);
    },
    'keyed compare': () => {
      const p = pick();
      return keyedCompare(p.prev, p.next);
    },
  };
  const rounds = ctx.quick ? 5 : 21;
  // Warm enough that every contender runs optimised code in the timed rounds, not its first tiers.
  const result = timeSync(fns, ctx.quick ? 8 : 24, rounds, 300);
  const us = result.medians;
  // Our time over microdiff's, round by round: the goal is ≤ 1/GOAL.
  const ratio = medianRatio(result.samples[DIFF]!, result.samples.microdiff!);
  const evaluateRatio = medianRatio(result.samples.evaluate!, result.samples.microdiff!);

  const output = pairs.map((p) => ({
    changes: diffKeywords(p.prev.ranks, p.next.ranks).changes.length,
    alerts: evaluate(ruleCtx(p.next), rules, p.prev, p.next, p.state).alerts.length,
    paths: microdiff(p.prev, p.next).length,
    changedRanks: keyedCompare(p.prev, p.next),
  }));
  const avg = (k: keyof (typeof output)[number]) => output.reduce((n, o) => n + o[k], 0) / output.length;
  const what: Record<string, string> = {
    [DIFF]: `${fmt(avg('changes'), 1)} typed changes (lists in the same order: paired by index)`,
    evaluate: `${fmt(avg('alerts'), 1)} alerts + the next rule state (${KEYWORDS} conditions)`,
    microdiff: `${fmt(avg('paths'), 1)} changed paths`,
    jsondiffpatch: 'a delta object (arrays matched by keyword)',
    'keyed compare': `${fmt(avg('changedRanks'), 1)} changed ranks counted`,
  };
  const rows = Object.keys(fns).map((name) => [
    name,
    fmt(us[name]!, 1),
    times(medianRatio(result.samples[name]!, result.samples.microdiff!)),
    `${fmt(spread(result.samples[name]!) * 100)}%`,
    what[name]!,
  ]);
  const details = [
    `${pairs.length} pairs of consecutive ${KEYWORDS}-keyword observations (${fmt(avg('changedRanks'), 0)} ranks changed a pair), ` +
      `${rounds} alternating rounds; µs per diff, median.`,
    '',
    table(['contender', 'µs / diff', '× microdiff', 'round spread', 'output'], rows, 'lrrrl'),
  ].join('\n');
  return {
    title: 'Diff of two 1,000-keyword observations',
    summary: [
      {
        metric: 'diff step vs microdiff',
        value: `${fmt(us[DIFF]!, 1)} µs`,
        reference: `microdiff ${fmt(us.microdiff!, 0)} µs, jsondiffpatch ${fmt(us.jsondiffpatch!, 0)} µs`,
        ratio: `${times(ratio)} microdiff's time`,
        goal: `≤ ${times(1 / GOAL, 1)} (${GOAL}× faster)`,
        met: ratio <= 1 / GOAL,
      },
      {
        metric: 'evaluate (rules on the diff, steady state)',
        value: `${fmt(us.evaluate!, 0)} µs`,
        reference: `microdiff ${fmt(us.microdiff!, 0)} µs`,
        ratio: `${times(evaluateRatio)} microdiff's time`,
      },
    ],
    details,
    data: { pairs: pairs.length, rounds, ...result, output },
  };
}

function ruleCtx(o: KeywordsObservation) {
  return { workspace: 'bench', targetId: `keywords/${o.asin}/US`, nowMs: o.observedAt };
}

/** Pairs keywords by name and counts changed ranks: the least any keyed diff must do. */
function keyedCompare(prev: KeywordsObservation, next: KeywordsObservation): number {
  const before = new Map<string, number | null>();
  for (const r of prev.ranks) before.set(r.keyword, r.rank);
  let changed = 0;
  for (const r of next.ranks) if (before.get(r.keyword) !== r.rank) changed++;
  return changed;
}
