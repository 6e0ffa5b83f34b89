import { PauseEpisodes } from '../src/budget/pause-episode.ts';
import { RedisRequestBudget } from '../src/budget/request-budget.ts';
import type { TargetRef } from '../src/model/observation.ts';
import { silentLogger } from '../src/ops/logger.ts';
import { type PollDeps, processPoll } from '../src/poll/processor.ts';
import { keywordsTargetId, type WatchTarget } from '../src/poll/targets.ts';
import { decodeRuleState } from '../src/rule-state/index.ts';
import { defaultRules } from '../src/rules/config.ts';
import { conditionsOf } from '../src/rules/engine.ts';
import { encodeObservation } from '../src/snapshot/encoding.ts';
import { SnapshotKeys } from '../src/snapshot/keys.ts';
import { decodeRecord } from '../src/snapshot/record.ts';
import { RedisSnapshotStore } from '../src/snapshot/store.ts';
import { systemClock } from '../src/util/clock.ts';
import type { BenchContext, BenchResult } from './lib/context.ts';
import { buildFleetWorker, fleetMemory, imageNodeOptions } from './lib/fleet.ts';
import { bytes, fmt, table, times } from './lib/format.ts';
import { historyBytesPerBook } from './lib/history-bytes.ts';
import { benchAsin, keywordList, keywordsPayload, nextSnapshot, packedBound } from './lib/keywords.ts';
import { payloadClient } from './lib/payload-client.ts';
import { mean } from './lib/stats.ts';
import { usage } from './snapshot-bytes.ts';

const KEYWORDS = 1000;
const BOUND_GOAL = 1.5;
const RSS_GOAL = 200 * 1024 * 1024;
/** The history's day strings carry Redis' per-key overhead over 4 B a point (docs/operations.md). */
const HISTORY_BOUND_GOAL = 1.1;

export async function run(ctx: BenchContext): Promise<BenchResult> {
  const perBook = await bytesPerBook(ctx);
  const history = await historyBytesPerBook(ctx);
  const historyRatio = history.hourly90.perBook / history.bound;
  const tieredRatio = history.tieredYear.perBook / history.hourly90.perBook;
  const fleetBooks = ctx.quick ? 1_000 : 10_000;
  // Most books track the default top 100; some track more. --full tracks 1,000 keywords on every book.
  const sizes = Array.from({ length: fleetBooks }, (_, i) =>
    ctx.full ? KEYWORDS : i % 10 === 0 ? KEYWORDS : i % 10 < 4 ? 300 : 100,
  );
  // As the Docker image runs it (compiled JavaScript, the image's NODE_OPTIONS: a V8 old-space
  // cap so the heap the poll churn grows is given back), and as `npx shelfwatch run` does (tsx,
  // V8's default heap sizing).
  const imageOptions = imageNodeOptions();
  const build = await buildFleetWorker();
  let shipped: Awaited<ReturnType<typeof fleetMemory>>;
  try {
    shipped = await fleetMemory(ctx, sizes, imageOptions, build.script);
  } finally {
    build.remove();
  }
  const fleet = await fleetMemory(ctx, sizes, []);
  const ranks = sizes.reduce((a, b) => a + b, 0);
  const mix = ctx.full
    ? `${fmt(fleetBooks)} books × ${KEYWORDS} keywords`
    : `${fmt(fleetBooks)} books: 10% track 1,000 keywords, 30% track 300, 60% the default top 100 (${fmt(ranks / fleetBooks)} a book on average)`;
  const ratio = perBook.total / perBook.bound;
  const ofBound = (total: number) => fmt(total / perBook.bound, 2);
  /** A row of one JSON string per book. */
  const jsonRow = (layout: string, total: number) => [
    layout,
    fmt(total),
    '',
    '',
    '',
    '',
    fmt(total),
    ofBound(total),
  ];
  /** A row of a layout stored as shelfwatch stores it: record, dictionary, health and index share. */
  const storedRow = (layout: string, record: number, ruleState: number, total: number) => [
    layout,
    fmt(record),
    fmt(ruleState),
    fmt(perBook.dict),
    fmt(perBook.health),
    fmt(perBook.index, 1),
    fmt(total),
    ofBound(total),
  ];
  const details = [
    `#### Redis bytes per watched ${KEYWORDS}-keyword book (${perBook.books} books after ${perBook.polls} polls each through processPoll, MEMORY USAGE SAMPLES 0)`,
    '',
    table(
      [
        'layout',
        'snapshot record',
        'of which rule state',
        'dictionary',
        'health',
        'index share',
        'total / book',
        '× packed bound',
      ],
      [
        ['packed lower bound (strings once + 4 B/rank)', '', '', '', '', '', fmt(perBook.bound), '1.00'],
        jsonRow('JSON string of the observation', perBook.jsonObservation),
        jsonRow('JSON string of observation + rule state (keyed)', perBook.jsonWithState),
        storedRow(
          'shelfwatch (rule state as columns, stored as bytes)',
          perBook.snap,
          perBook.ruleStateBytes,
          perBook.total,
        ),
        storedRow(
          'shelfwatch without rule state (for comparison)',
          perBook.snapNoState,
          0,
          perBook.totalNoState,
        ),
        storedRow(
          'rule state as keyed JSON (the previous format, for comparison)',
          perBook.snapJson,
          perBook.ruleStateJson,
          perBook.totalJson,
        ),
      ],
    ),
    '',
    `The rule state holds one keyword_rank_drop condition per keyword, as columns aligned with the snapshot's keyword order and encoded by \`src/rule-state/codec.ts\`: ${fmt(perBook.ruleStateBytes / KEYWORDS, 1)} B a keyword (as JSON keyed \`ruleId|asin|marketplace|keyword\`, the previous format: ${fmt(perBook.ruleStateJson / KEYWORDS)} B).`,
    '',
    `#### History kept for charts: Redis bytes per book, ${history.keywords} keywords and BSR (${history.books} books, MEMORY USAGE SAMPLES 0)`,
    '',
    table(
      ['layout', 'keys / book', 'bytes / book', '× 90 hourly days', 'write + compact / book'],
      [
        [
          'packed bound of 90 hourly days (4 B a point, 24 a day, every series)',
          '',
          fmt(history.bound),
          '',
          '',
        ],
        ...[history.hourly90, history.tieredYear].map((layout) => [
          layout.label,
          fmt(layout.keysPerBook),
          fmt(layout.perBook),
          fmt(layout.perBook / history.hourly90.perBook, 2),
          `${fmt(layout.writeMs)} ms`,
        ]),
      ],
    ),
    '',
    `#### Fleet: ${mix}`,
    '',
    table(
      ['measure', 'value', 'per book', 'goal'],
      [
        ['Redis used_memory growth', bytes(fleet.usedMemory), bytes(fleet.usedMemory / fleetBooks), ''],
        [
          `worker RSS after the polls (after GC), as the image runs it: compiled, ${imageOptions.join(' ')}`,
          `${bytes(shipped.report.rss)} (heap ${bytes(shipped.report.heapTotal)}, ${fmt(shipped.report.seconds, 1)} s)`,
          '',
          `≤ ${bytes(RSS_GOAL)}`,
        ],
        [
          '… its RSS at start / peak',
          `${bytes(shipped.report.rssAtStart)} / ${bytes(shipped.report.maxRss)}`,
          '',
          '',
        ],
        [
          'worker RSS after the polls (after GC), through tsx with V8 defaults (`npx shelfwatch run`)',
          `${bytes(fleet.report.rss)} (heap ${bytes(fleet.report.heapTotal)}, ${fmt(fleet.report.seconds, 1)} s)`,
          '',
          '',
        ],
        [
          '… its RSS at start (Runtime + workers, before polls) / peak',
          `${bytes(fleet.report.rssAtStart)} / ${bytes(fleet.report.maxRss)}`,
          '',
          '',
        ],
        [
          'worker V8 heap used / committed / external',
          `${bytes(fleet.report.heapUsed)} / ${bytes(fleet.report.heapTotal)} / ${bytes(fleet.report.external)}`,
          '',
          '',
        ],
        ['polls (2 a book), time', `${fmt(fleet.report.polls)} in ${fmt(fleet.report.seconds, 1)} s`, '', ''],
      ],
    ),
    ctx.privateRedis
      ? ''
      : '\nREDIS_URL was given: used_memory counts every client of that server, so the growth is approximate.',
  ].join('\n');
  return {
    title: 'Memory: Redis bytes per book, fleet Redis memory and worker RSS',
    summary: [
      {
        metric: 'Redis bytes / 1,000-keyword book, all the rules keep',
        value: fmt(perBook.total),
        reference: `packed bound ${fmt(perBook.bound)}`,
        ratio: times(ratio),
        goal: `≤ ${BOUND_GOAL}× bound`,
        met: ratio <= BOUND_GOAL,
      },
      {
        metric: `Redis bytes / book of history, 90 hourly days × ${history.keywords} keywords + BSR`,
        value: fmt(history.hourly90.perBook),
        reference: `packed bound ${fmt(history.bound)}`,
        ratio: times(historyRatio),
        goal: `≤ ${HISTORY_BOUND_GOAL}× bound`,
        met: historyRatio <= HISTORY_BOUND_GOAL,
      },
      {
        metric: `Redis bytes / book of tiered history, a year × ${history.keywords} keywords + BSR`,
        value: fmt(history.tieredYear.perBook),
        reference: `90 hourly days ${fmt(history.hourly90.perBook)}`,
        ratio: times(tieredRatio),
        goal: '≤ 1× 90 hourly days',
        met: tieredRatio <= 1,
      },
      {
        metric: `worker RSS, ${fmt(fleetBooks)} books${ctx.full ? '' : ' (mixed sizes)'}, as the Docker image runs it`,
        value: bytes(shipped.report.rss),
        reference: `tsx with V8 defaults ${bytes(fleet.report.rss)}; polls took ${times(shipped.report.seconds / fleet.report.seconds)} its time; Redis +${bytes(fleet.usedMemory)}`,
        goal: `≤ ${bytes(RSS_GOAL)}`,
        met: shipped.report.rss <= RSS_GOAL,
      },
    ],
    details,
    data: { perBook, history, fleet, shipped, imageOptions, sizes: { books: fleetBooks, ranks } },
  };
}

async function bytesPerBook(ctx: BenchContext) {
  const redis = ctx.redis();
  const prefix = ctx.prefix();
  const books = ctx.quick ? 5 : 20;
  const polls = ctx.quick ? 3 : 6;
  const rules = defaultRules();
  const store = new RedisSnapshotStore({ redis, prefix });
  const keys = new SnapshotKeys(prefix);
  const library = Array.from({ length: books }, (_, i) =>
    keywordList(3000 + i, KEYWORDS, benchAsin(200 + i)),
  );
  const targets = new Map<string, WatchTarget>(
    library.map((o) => {
      const id = keywordsTargetId(o.asin, 'US');
      return [
        id,
        {
          ref: { workspace: 'bench', kind: 'keywords', id },
          kind: 'keywords',
          asin: o.asin,
          marketplace: 'US',
          keywords: { top: KEYWORDS },
        },
      ];
    }),
  );
  const current = new Map<string, string>();
  const deps: PollDeps = {
    clientFor: () => payloadClient((asin) => current.get(asin)!),
    store,
    budget: new RedisRequestBudget({ redis, prefix, clock: systemClock }),
    pauses: new PauseEpisodes(redis, prefix),
    registry: { target: (_ws, id) => targets.get(id), rules: () => rules },
    alerts: { enqueue: async () => {} },
    clock: systemClock,
    logger: silentLogger(),
  };
  const latest = [...library];
  for (let p = 1; p <= polls; p++) {
    for (let i = 0; i < books; i++) {
      latest[i] = nextSnapshot(library[i]!, latest[i]!, i * 31 + p);
      current.set(latest[i]!.asin, keywordsPayload(latest[i]!));
      const result = await processPoll(
        deps,
        { workspace: 'bench', targetId: keywordsTargetId(latest[i]!.asin, 'US') },
        { signal: new AbortController().signal, pollTimeMs: latest[i]!.observedAt },
      );
      if (result.status !== 'ok') throw new Error(`poll: ${JSON.stringify(result)}`);
    }
  }
  const rows: Record<
    | 'bound'
    | 'snap'
    | 'ruleStateBytes'
    | 'ruleStateJson'
    | 'snapNoState'
    | 'snapJson'
    | 'dict'
    | 'health'
    | 'jsonObservation'
    | 'jsonWithState',
    number
  >[] = [];
  for (let i = 0; i < books; i++) {
    const o = latest[i]!;
    const ref = targets.get(keywordsTargetId(o.asin, 'US'))!.ref;
    const record = decodeRecord((await redis.getBuffer(keys.snapshot(ref)))!);
    const stored = record.ruleState as Uint8Array;
    // The previous format of the same state: every condition keyed, as JSON.
    const keyed = { conditions: conditionsOf(decodeRuleState(stored, o)!) };
    const bare: TargetRef = { ...ref, id: `${ref.id}/bare` };
    await store.commit(bare, { observation: o, ruleState: undefined, committedAt: o.observedAt }, 0);
    const json: TargetRef = { ...ref, id: `${ref.id}/json` };
    await store.commit(json, { observation: o, ruleState: keyed, committedAt: o.observedAt }, 0);
    const jsonKey = `${prefix}:json:${i}`;
    await redis.set(jsonKey, JSON.stringify(o));
    const jsonStateKey = `${prefix}:json-state:${i}`;
    await redis.set(jsonStateKey, JSON.stringify({ observation: o, ruleState: keyed }));
    rows.push({
      bound: packedBound(o),
      snap: await usage(redis, keys.snapshot(ref)),
      ruleStateBytes: stored.length,
      ruleStateJson: Buffer.byteLength(JSON.stringify(keyed)),
      snapNoState: await usage(redis, keys.snapshot(bare)),
      snapJson: await usage(redis, keys.snapshot(json)),
      dict: await usage(redis, keys.dictionary('bench', encodeObservation(o).dictionary!.id)),
      health: await usage(redis, keys.health(ref)),
      jsonObservation: await usage(redis, jsonKey),
      jsonWithState: await usage(redis, jsonStateKey),
    });
  }
  // The index holds the two twins too: a third of it belongs to the real targets.
  const index = (await usage(redis, keys.targets('bench'))) / (3 * books);
  const avg = (k: keyof (typeof rows)[number]) => mean(rows.map((r) => r[k]));
  const base = avg('dict') + avg('health') + index;
  return {
    books,
    polls,
    bound: avg('bound'),
    snap: avg('snap'),
    ruleStateBytes: avg('ruleStateBytes'),
    ruleStateJson: avg('ruleStateJson'),
    snapNoState: avg('snapNoState'),
    snapJson: avg('snapJson'),
    dict: avg('dict'),
    health: avg('health'),
    index,
    jsonObservation: avg('jsonObservation'),
    jsonWithState: avg('jsonWithState'),
    total: avg('snap') + base,
    totalNoState: avg('snapNoState') + base,
    totalJson: avg('snapJson') + base,
  };
}
