import type { SimFaultInput } from '../../src/sim/control-schemas.ts';
import type { SimControlClient } from '../../src/sim/index.ts';
import type { SmtpReceiver } from '../../src/tools/receivers/smtp.ts';
import { OBSERVE_DEADLINE_MS } from './deadlines.ts';
import type { ChaosRedis } from './redis-aof.ts';
import { type ChaosRng, sleep } from './rng.ts';
import type { EventContext, ScriptedEvent } from './scenario.ts';
import type { WorkerPool } from './worker-pool.ts';

export type SlackMode = 'ok' | '500' | '429';

export interface ChaosTargets {
  /** The run's generator; each task forks its own from it. */
  rng: ChaosRng;
  admin: SimControlClient;
  workers: WorkerPool;
  redis: ChaosRedis;
  smtp: SmtpReceiver;
  setSlackMode(mode: SlackMode): void;
  /** Slack posts refused so far (500 or 429). */
  slackRefused(): number;
  log(line: string): void;
}

export interface EventRecord {
  id: string;
  /** Null when the run ran out of time before applying it. */
  appliedAt: number | null;
  observedAt: number | null;
}

/** Applies the events one by one, each after the previous one was observed by a good poll. */
export async function runEvents(
  t: ChaosTargets,
  ctx: EventContext,
  events: readonly ScriptedEvent[],
  cutoffAt: number,
): Promise<EventRecord[]> {
  const rng = t.rng.fork('events');
  const records: EventRecord[] = [];
  for (const event of events) {
    await sleep(rng.between(2_000, 5_000));
    if (Date.now() > cutoffAt) {
      records.push({ id: event.id, appliedAt: null, observedAt: null });
      t.log(`event ${event.id}: not applied, out of time`);
      continue;
    }
    await event.apply(ctx);
    const appliedAt = Date.now();
    const record: EventRecord = { id: event.id, appliedAt, observedAt: null };
    records.push(record);
    const deadline = appliedAt + OBSERVE_DEADLINE_MS;
    while (Date.now() < deadline) {
      if (await event.observed(ctx)) {
        record.observedAt = Date.now();
        break;
      }
      await sleep(250);
    }
    t.log(
      `event ${event.id}: ${record.observedAt === null ? 'NOT observed' : `observed after ${record.observedAt - appliedAt} ms`}`,
    );
  }
  return records;
}

/** SIGKILLs a random live worker at each of `count` random moments in [fromMs, toMs], restarting it soon after. */
export async function runKills(t: ChaosTargets, count: number, fromMs: number, toMs: number): Promise<void> {
  const rng = t.rng.fork('kills');
  const start = Date.now();
  const moments = Array.from({ length: count }, () => rng.between(fromMs, toMs)).sort((a, b) => a - b);
  const restarts: Promise<void>[] = [];
  for (const moment of moments) {
    await sleep(start + moment - Date.now());
    const live = t.workers.liveSlots();
    if (live.length === 0) continue;
    const slot = rng.pick(live);
    const restartAfter = rng.between(500, 3_000);
    const kill = await t.workers.kill(slot);
    t.log(`killed worker ${slot} (pid ${kill?.pid}); restart in ${Math.round(restartAfter)} ms`);
    restarts.push(sleep(restartAfter).then(() => t.workers.start(slot)));
  }
  await Promise.all(restarts);
}

/**
 * Kills every live worker while the Slack receiver holds its 200 for a message it already took:
 * the sender dies between the channel's confirmation and its dedup write, the one window where a
 * duplicate is allowed. The re-sent message must then show up as a duplicate inside that window.
 */
export class ConfirmationKiller {
  moments = 0;
  private readonly rng: ChaosRng;
  private busy = false;
  private nextAllowedAt = Date.now() + 20_000;

  constructor(
    private readonly t: ChaosTargets,
    private readonly times: number,
  ) {
    this.rng = t.rng.fork('confirmation');
  }

  /** Maybe (a seeded coin) kills every live worker now; resolves once they are dead. */
  async maybeKill(): Promise<void> {
    const { t } = this;
    if (this.moments >= this.times || this.busy || Date.now() < this.nextAllowedAt || this.rng.next() > 0.5)
      return;
    this.busy = true;
    this.moments += 1;
    this.nextAllowedAt = Date.now() + 30_000;
    const slots = t.workers.liveSlots();
    await Promise.all(slots.map((slot) => t.workers.kill(slot, 'confirmation')));
    t.log(`killed workers ${slots.join(', ')} before Slack's 200 reached the sender`);
    void sleep(this.rng.between(1_000, 2_500)).then(() => {
      for (const slot of slots) t.workers.start(slot);
      this.busy = false;
    });
  }
}

/** The API's bad day: rate-based faults all along, and scripted bursts of each kind. */
export async function runApiFaults(t: ChaosTargets, durationMs: number): Promise<void> {
  const rng = t.rng.fork('api');
  const start = Date.now();
  await t.admin.setRates({
    errorRate: 0.05,
    htmlRate: 0.04,
    slowRate: 0.015,
    slowMs: 16_000,
    malformedRate: 0.04,
  });
  const bursts: [atMs: number, fault: SimFaultInput][] = [
    [8_000, { kind: 'status', status: 503, code: 'unavailable', count: 6, pathPrefix: '/v1/books/' }],
    [16_000, { kind: 'html', status: 502, count: 8, pathPrefix: '/v1/arc/' }],
    [26_000, { kind: 'status', status: 429, code: 'rate_limited', retryAfter: { seconds: 3 }, count: 8 }],
    [38_000, { kind: 'slow', delayMs: 17_000, count: 2 }],
    [46_000, { kind: 'malformed_json', count: 4, pathPrefix: '/v1/sales' }],
    [54_000, { kind: 'reset_connection', count: 4 }],
    [
      62_000,
      { kind: 'status', status: 429, code: 'rate_limited', retryAfter: { date: true, seconds: 2 }, count: 6 },
    ],
    [70_000, { kind: 'status', status: 500, code: 'internal', count: 4 }],
    [78_000, { kind: 'slow', delayMs: 17_000, count: 1, pathPrefix: '/v1/books/' }],
  ];
  for (const [atMs, fault] of bursts) {
    await sleep(start + atMs + rng.between(0, 4_000) - Date.now());
    await t.admin.fault(fault);
    t.log(
      `fault burst: ${fault.kind}${fault.status === undefined ? '' : ` ${fault.status}`} ×${fault.count ?? 1}`,
    );
  }
  await sleep(start + durationMs - Date.now());
  await t.admin.setRates({});
}

/**
 * Slack answers 500 for a while, later 429 with Retry-After for a while: each window lasts 12–18 s
 * and until at least two posts were refused, so both refusals are met whatever the alert rate.
 */
export async function runSlackOutage(t: ChaosTargets): Promise<void> {
  const rng = t.rng.fork('slack');
  const start = Date.now();
  for (const [mode, atMs] of [
    ['500', 12_000],
    ['429', 44_000],
  ] as const) {
    await sleep(start + atMs + rng.between(0, 5_000) - Date.now());
    t.setSlackMode(mode);
    t.log(`slack: answering ${mode}`);
    const began = Date.now();
    const refusedBefore = t.slackRefused();
    const minMs = rng.between(12_000, 18_000);
    const done = () => Date.now() - began >= minMs && t.slackRefused() - refusedBefore >= 2;
    while (!done() && Date.now() - began < 45_000) await sleep(250);
    t.setSlackMode('ok');
    t.log(`slack: answering 200 again (${t.slackRefused() - refusedBefore} refused)`);
  }
}

/** The SMTP server goes away (listener closed, connections dropped) and comes back on its port. */
export async function runSmtpOutage(t: ChaosTargets): Promise<number> {
  const rng = t.rng.fork('smtp');
  await sleep(rng.between(22_000, 30_000));
  const downAt = Date.now();
  await t.smtp.stop();
  t.log('smtp: down');
  await sleep(rng.between(18_000, 28_000));
  await t.smtp.start();
  t.log('smtp: up');
  return Date.now() - downAt;
}

/** Redis goes down (SIGTERM or SIGKILL) for a few seconds and comes back from its append-only file. */
export async function runRedisRestart(t: ChaosTargets): Promise<void> {
  const rng = t.rng.fork('redis');
  await sleep(rng.between(45_000, 75_000));
  const signal = rng.pick(['SIGTERM', 'SIGKILL'] as const);
  const outage = await t.redis.restart(signal, rng.between(1_500, 4_000));
  t.log(`redis: restarted after ${signal}, down ${outage.upAt - outage.downAt} ms`);
}
