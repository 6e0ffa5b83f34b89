import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { artifactPath } from '../helpers/artifacts.ts';
import type { ChannelReport } from './deliveries.ts';

export interface Figures {
  seed: number;
  startedAt: string;
  durationMs: number;
  chaosMs: number;
  settleMs: number;
  faults: Record<string, number>;
  slackRefused: { status500: number; status429: number };
  smtpDownMs: number;
  /** Email flush attempts that failed (the server was down) according to the workers' logs. */
  emailRefused: number;
  workerKills: { random: number; atConfirmation: number; confirmationMoments: number };
  redisRestarts: { signal: string; downMs: number }[];
  scriptedEvents: number;
  /** Alerting events among those applied (the run applies no event after its cutoff). */
  alertingEvents: number;
  notApplied: number;
  channels: ChannelReport[];
  deadLetters: Map<string, number>;
  deadChannel: { expectedHeld: number; expected: number };
  budget: { maxPerMinute: number; maxCounted: number; limit: number; requests: number };
  http429: { injected: number; unexpected: number };
  leftovers: { deliver: number; poll: number; healthyGroups: number };
  hostile: { slackTokens: number; emailInjections: number; forgedTextLines: number };
  secretHits: { logs: number; redis: number; messages: number };
  exitCodes: (number | null)[];
  /** Longest stall of the test process's event loop (it hosts the simulator, so it skews arrival times). */
  maxLoopLagMs: number;
  /** Longest time a target went without a poll, and how many gaps passed 30 s (cadences are 4–8 s). */
  pollGaps: { maxMs: number; over30s: number };
  /** Spawn to "shelfwatch running" (tsx compiles the sources at every start). */
  startup: { count: number; medianMs: number; maxMs: number };
  /** Workers that exited on their own (restarted by the pool, as a supervisor would). */
  crashes: string[];
  failures: string[];
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

export function renderFigures(f: Figures): string {
  const faults = Object.entries(f.faults)
    .map(([kind, n]) => `${kind} ${n}`)
    .join(' · ');
  const restarts = f.redisRestarts.map((r) => `${r.signal}, down ${seconds(r.downMs)}`).join('; ');
  const rows: [string, string][] = [
    ['seed', `${f.seed} (\`CHAOS_SEED=${f.seed} npm run test:chaos\`)`],
    [
      'run',
      `${f.startedAt}, ${seconds(f.durationMs)} in all (chaos ${seconds(f.chaosMs)}, settle ${seconds(f.settleMs)})`,
    ],
    ['API faults injected', faults],
    [
      'Slack receiver refusals',
      `500 ×${f.slackRefused.status500}, 429 with Retry-After ×${f.slackRefused.status429}`,
    ],
    ['SMTP server down', `${seconds(f.smtpDownMs)} (${f.emailRefused} email sends failed and were retried)`],
    [
      'worker kills (SIGKILL, then restart)',
      `${f.workerKills.random} at random moments + ${f.workerKills.atConfirmation} while Slack held its 200 (${f.workerKills.confirmationMoments} times)`,
    ],
    ['Redis restarts (AOF, same port and dir)', `${f.redisRestarts.length} (${restarts})`],
    [
      'scripted events',
      f.notApplied === 0
        ? `${f.scriptedEvents} (${f.alertingEvents} alerting, ${f.scriptedEvents - f.alertingEvents} silent)`
        : `${f.scriptedEvents}, ${f.notApplied} not applied (out of time); applied: ${f.alertingEvents} alerting, ${f.scriptedEvents - f.notApplied - f.alertingEvents} silent`,
    ],
    [
      'max API requests in any 60 s',
      `${f.budget.maxPerMinute} sent, ${f.budget.maxCounted} counted by the API (limit ${f.budget.limit}; ${f.budget.requests} requests in all)`,
    ],
    ['429 answers from the API', `${f.http429.injected} injected, ${f.http429.unexpected} unexpected`],
    [
      'queue leftovers',
      `deliver ${f.leftovers.deliver}, poll ${f.leftovers.poll}, group keys of healthy channels ${f.leftovers.healthyGroups}`,
    ],
    [
      'hostile text',
      `Slack control tokens ${f.hostile.slackTokens}, email injections ${f.hostile.emailInjections}, forged alert lines in plain-text emails ${f.hostile.forgedTextLines}`,
    ],
    [
      'secrets found',
      `worker logs ${f.secretHits.logs}, Redis keys ${f.secretHits.redis}, delivered messages ${f.secretHits.messages}`,
    ],
    [
      'longest gap between two polls of a target',
      `${seconds(f.pollGaps.maxMs)} (${f.pollGaps.over30s} gaps over 30 s)`,
    ],
    [
      'worker start-up (spawn to running)',
      `median ${seconds(f.startup.medianMs)}, longest ${seconds(f.startup.maxMs)} (${f.startup.count} starts)`,
    ],
    [
      'worker crashes (exited on their own, restarted)',
      f.crashes.length === 0 ? '0' : `${f.crashes.length}: ${f.crashes.join('; ')}`,
    ],
    ['worker exit codes on SIGTERM', f.exitCodes.map(String).join(', ')],
    ['longest event-loop stall of the test process', `${f.maxLoopLagMs} ms`],
  ];
  const general = ['| figure | value |', '|---|---|', ...rows.map(([k, v]) => `| ${k} | ${v} |`)];
  const channelRows = f.channels.map((c) => {
    const inWindow = c.duplicates.filter((d) => d.inWindow).length;
    return `| ${c.channel} | ${c.expected} | ${c.delivered} | ${c.duplicates.length} (${inWindow} in window, ${c.duplicates.length - inWindow} outside) | ${c.losses.length} | ${c.invented.length + c.doubleAlerts.length} | ${c.healthFired} / ${c.healthRecovered} | ${c.channelDisabled} | ${f.deadLetters.get(c.channel) ?? 0} |`;
  });
  const dead = `| dead (Slack answering 404 all run) | ${f.deadChannel.expected} | held, not sent: ${f.deadChannel.expectedHeld} | — | — | — | — | — | ${f.deadLetters.get('dead') ?? 0} |`;
  const channels = [
    '| channel | alerts expected | delivered | duplicates | losses | invented | source health fired / recovered | channel-disabled notice | dead letters |',
    '|---|---|---|---|---|---|---|---|---|',
    ...channelRows,
    dead,
  ];
  const verdict =
    f.failures.length === 0
      ? 'All checks passed.'
      : `Failed checks:\n${f.failures.map((x) => `- ${x}`).join('\n')}`;
  return [...general, '', ...channels, '', verdict].join('\n');
}

const BEGIN = '<!-- chaos-figures:begin -->';
const END = '<!-- chaos-figures:end -->';

/** Where a run with this seed leaves its figures (the folder is ignored by git). */
/** One shard (the docs' figures) as before; a Cluster run (`CHAOS_SHARDS=3`) apart from it. */
export function figuresPath(seed: number, shards = 1): string {
  return artifactPath('chaos', `figures-seed-${seed}${shards === 1 ? '' : `-shards-${shards}`}.md`);
}

/** Keeps this run's figures in .artifacts/chaos/: a run writes no tracked file. */
export function saveFigures(seed: number, figures: string, shards = 1): string {
  const path = figuresPath(seed, shards);
  writeFileSync(path, `${figures}\n`);
  return path;
}

/**
 * Replaces the generated block of docs/reliability.md with the seeds table (one row per saved run,
 * seeds-table.ts) and one run's full figures (`npm run docs:reliability`,
 * scripts/docs-reliability.ts). False when the page has no block.
 */
export function writeFiguresDoc(path: string, figures: string, seeds: string): boolean {
  if (!existsSync(path)) return false;
  const doc = readFileSync(path, 'utf8');
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) return false;
  const block = [
    BEGIN,
    "Each seed's latest run, written by `npm run test:chaos` and copied by `npm run docs:reliability`:",
    '',
    seeds.trimEnd(),
    '',
    'One of those runs in full:',
    '',
    figures.trimEnd(),
    END,
  ].join('\n');
  writeFileSync(path, doc.slice(0, start) + block + doc.slice(end + END.length));
  return true;
}
