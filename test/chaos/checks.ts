import type { ParsedMail } from 'mailparser';
import type { RequestLogEntry } from '../../src/sim/index.ts';
import type { ReceivedRequest } from '../../src/tools/receivers/http.ts';
import { type CapturedEmail, type ChannelReport, forgedTextLines, withoutBookName } from './deliveries.ts';
import { emailInjections, slackControlTokens } from './hostile.ts';
import {
  busiestWindow,
  type DeliverState,
  faultTally,
  type GroupLeft,
  heldAlerts,
  pendingTotal,
} from './inspect.ts';
import type { RedisOutage } from './redis-aof.ts';
import type { Figures } from './report.ts';
import type { ExpectedAlert } from './scenario.ts';
import type { EventRecord } from './timeline.ts';
import type { WorkerKill } from './worker-pool.ts';

/** Everything the run recorded, gathered after the workers stopped. */
export interface RunEvidence {
  seed: number;
  startedAt: number;
  chaosMs: number;
  settleMs: number;
  limit: number;
  requests: readonly RequestLogEntry[];
  slackAnswers: readonly { request: ReceivedRequest; status: number }[];
  /** Every Slack post (both receivers) and every email, raw: for the secrets check. */
  rawMessages: readonly string[];
  mails: readonly ParsedMail[];
  emails: readonly CapturedEmail[];
  logLines: readonly string[];
  kills: readonly WorkerKill[];
  confirmationMoments: number;
  outages: readonly RedisOutage[];
  smtpDownMs: number;
  events: number;
  records: readonly EventRecord[];
  expected: readonly ExpectedAlert[];
  channels: readonly ChannelReport[];
  deliver: DeliverState;
  groups: readonly GroupLeft[];
  pollLeftovers: readonly string[];
  exitCodes: (number | null)[];
  redisSecretKeys: readonly string[];
  secrets: readonly string[];
  maxLoopLagMs: number;
  pollGaps: { maxMs: number; over30s: number };
  startupMs: number[];
  crashes: string[];
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The figures of the run and every check that failed. */
export function judgeRun(e: RunEvidence): Figures {
  const { channels, deliver } = e;
  const deadHeld = e.groups.filter((g) => g.channel === 'dead').flatMap(heldAlerts);
  const healthyGroups = e.groups.filter((g) => g.channel !== 'dead');
  const injections = e.mails.flatMap((m) => emailInjections(m));
  const logText = e.logLines.join('\n');
  const messages = e.rawMessages.join('\n');
  const counted = e.requests.filter((r) => r.counted);
  const figures: Figures = {
    seed: e.seed,
    startedAt: iso(e.startedAt),
    durationMs: Date.now() - e.startedAt,
    chaosMs: e.chaosMs,
    settleMs: e.settleMs,
    faults: faultTally(e.requests),
    slackRefused: {
      status500: e.slackAnswers.filter((a) => a.status === 500).length,
      status429: e.slackAnswers.filter((a) => a.status === 429).length,
    },
    smtpDownMs: e.smtpDownMs,
    emailRefused: e.logLines.filter(
      (l) => l.includes('"job failed"') && l.includes('email channel \\"email\\"'),
    ).length,
    workerKills: {
      random: e.kills.filter((k) => k.reason === 'random').length,
      atConfirmation: e.kills.filter((k) => k.reason === 'confirmation').length,
      confirmationMoments: e.confirmationMoments,
    },
    redisRestarts: e.outages.map((o) => ({ signal: o.signal, downMs: o.upAt - o.downAt })),
    scriptedEvents: e.events,
    alertingEvents: e.expected.length,
    notApplied: e.records.filter((r) => r.appliedAt === null).length,
    channels: [...channels],
    deadLetters: deliver.deadLetters,
    deadChannel: {
      expected: e.expected.length,
      expectedHeld: e.expected.filter((x) => deadHeld.some((a) => x.matches(withoutBookName(a.title))))
        .length,
    },
    budget: {
      maxPerMinute: busiestWindow(e.requests),
      maxCounted: busiestWindow(counted),
      limit: e.limit,
      requests: e.requests.length,
    },
    http429: {
      injected: e.requests.filter((r) => r.status === 429 && r.fault !== null).length,
      unexpected: e.requests.filter((r) => r.status === 429 && r.fault === null).length,
    },
    leftovers: {
      deliver: pendingTotal(deliver.pending),
      poll: e.pollLeftovers.length,
      healthyGroups: healthyGroups.length,
    },
    hostile: {
      slackTokens: e.slackAnswers.flatMap((a) => slackControlTokens(a.request.body)).length,
      emailInjections: injections.length,
      forgedTextLines: forgedTextLines(e.emails),
    },
    secretHits: {
      logs: e.secrets.filter((s) => logText.includes(s)).length,
      redis: e.redisSecretKeys.length,
      messages: e.secrets.filter((s) => messages.includes(s)).length,
    },
    exitCodes: e.exitCodes,
    maxLoopLagMs: e.maxLoopLagMs,
    pollGaps: e.pollGaps,
    startup: {
      count: e.startupMs.length,
      medianMs: [...e.startupMs].sort((a, b) => a - b)[Math.floor(e.startupMs.length / 2)] ?? 0,
      maxMs: Math.max(0, ...e.startupMs),
    },
    crashes: e.crashes,
    failures: [],
  };
  const fail = (text: string) => figures.failures.push(text);
  for (const r of e.records)
    if (r.appliedAt === null)
      fail(`event ${r.id} was not applied: the run ran out of time for its events (a slow machine?)`);
    else if (r.observedAt === null) fail(`event ${r.id} was never observed by a good poll`);
  for (const c of channels) {
    for (const l of c.losses) fail(`${c.channel} lost: ${l}`);
    for (const i of c.invented) fail(`${c.channel} invented: ${i}`);
    for (const d of c.doubleAlerts) fail(`${c.channel} alerted one change twice: ${d}`);
    for (const d of c.duplicates.filter((x) => !x.inWindow))
      fail(
        `${c.channel} duplicate outside the window: ${d.title} (${iso(d.firstAt)}, again ${iso(d.againAt)})`,
      );
    for (const h of c.healthUnpaired) fail(`${c.channel} source health without its pair: ${h}`);
    if (c.channelDisabled !== 1)
      fail(`${c.channel} got the channel-disabled notice ${c.channelDisabled} times`);
    if ((deliver.deadLetters.get(c.channel) ?? 0) > 0) fail(`${c.channel} has dead letters`);
  }
  if ((deliver.deadLetters.get('dead') ?? 0) === 0) fail('the dead channel has no dead letters');
  const { expectedHeld, expected } = figures.deadChannel;
  if (expectedHeld < expected) fail(`the dead channel holds ${expectedHeld} of ${expected} expected alerts`);
  if (deliver.failedAdmits > 0)
    fail(`${deliver.failedAdmits} failed admission jobs (alerts that never reached a group)`);
  if (figures.budget.maxPerMinute > e.limit)
    fail(`${figures.budget.maxPerMinute} API requests in one 60 s window`);
  if (figures.http429.unexpected > 0) fail(`${figures.http429.unexpected} 429 answers not injected`);
  if (figures.leftovers.deliver > 0) fail(`deliver queue not drained: ${JSON.stringify(deliver.pending)}`);
  for (const p of e.pollLeftovers) fail(`poll queue leftover: ${p}`);
  for (const g of healthyGroups) {
    const held = heldAlerts(g).map((a) => a.title);
    fail(
      `group ${g.hash} of ${g.channel} left with due ${g.due ?? 'none'} holding: ${held.join(' | ') || 'nothing'}`,
    );
  }
  if (figures.hostile.slackTokens > 0)
    fail(`${figures.hostile.slackTokens} live Slack mentions/links from review text`);
  if (injections.length > 0) fail(`email injections: ${injections.join('; ')}`);
  const leaks = figures.secretHits.logs + figures.secretHits.redis + figures.secretHits.messages;
  if (leaks > 0)
    fail(
      `secrets leaked: ${JSON.stringify(figures.secretHits)} (Redis keys: ${e.redisSecretKeys.join(', ')})`,
    );
  if (e.exitCodes.some((c) => c !== 0)) fail(`worker exit codes on SIGTERM: ${e.exitCodes.join(', ')}`);
  return figures;
}
