/**
 * Scripted events for the budget month, so detection latency is measured from a known sim time.
 * Each event book runs two independent machines, one per kind:
 *
 *   keyword: a tracked "signal" keyword sits at #3; a drop puts it at #150 (→ keyword_rank_drop)
 *   bsr:     the BSR is held at #100; a spike puts it at #5,000 (→ bsr_worsened)
 *
 * A machine applies its drop at a random time (so events land at random phases of the poll
 * schedule), waits for the alert (or gives up: a miss), restores the value at once, waits until a
 * poll has seen the restored value (so the condition is clear again), then waits a gap before the
 * next drop. BSR gaps are at least 26 h so the rule's 24 h median is back at #100. The first drop
 * waits until a poll has taken the baseline with the signal at home.
 */
import type { Alert } from '../../src/model/alert.ts';
import { bookTargetId, keywordsTargetId } from '../../src/poll/targets.ts';
import type { SimEventInput } from '../../src/sim/control-schemas.ts';
import type { SimControlClient } from '../../src/sim/index.ts';
import type { Marketplace } from '../../src/sim/world/market.ts';

export const SIGNAL_KEYWORD = 'swbench signal keyword';
const KEYWORD_HOME = 3;
const KEYWORD_DROP = 150;
/** Better than any generated rank, so holding it never looks like a worsening by itself. */
const BSR_HOME = 100;
const BSR_SPIKE = 5_000;
const HOUR = 3_600_000;

export interface PollInfo {
  targetId: string;
  /** The poll's scheduled time (sim ms): the time it would have run at 1× speed. */
  scheduledAt: number;
  /** The target's cadence when the poll was scheduled (sim ms). */
  cadenceMs: number;
  /** Monotonic real ms when the poll started. */
  startReal: number;
}

export interface EventSample {
  kind: 'keyword' | 'bsr';
  asin: string;
  /** Sim time the event became visible. */
  appliedAt: number;
  /** The target's planned cadence when the event happened: the bound of the wait it can cause. */
  cadenceMs: number;
  detected: boolean;
  /** A poll scheduled after the event ran ok without alerting (or, as a last resort, 24 h + 10 cadences passed). */
  missed: boolean;
  /** Sim time the alert was enqueued (as measured on the accelerated clock). */
  alertAt?: number;
  /** Wait from the event to the scheduled time of the first poll that could see it (sim ms). */
  waitMs?: number;
  /** Real ms from that poll's start to its alert: what the same poll costs at 1× speed. */
  processingMs?: number;
}

type Phase = 'wait-drop' | 'armed' | 'restore' | 'await-observe';

interface Machine {
  kind: 'keyword' | 'bsr';
  asin: string;
  marketplace: string;
  targetId: string;
  phase: Phase;
  dueAt: number;
  restoredAt: number;
  sample?: EventSample;
  /** An alert seen while the event's own call was still being answered. */
  detection?: { poll: PollInfo; alertAt: number; processingMs: number };
}

export interface EventScriptOptions {
  control: SimControlClient;
  books: { asin: string; marketplace: string }[];
  /** The target's current planned cadence (sim ms). */
  cadenceOf(targetId: string): number;
  now(): number;
  monotonic(): number;
  random(): number;
}

export class EventScript {
  private readonly machines: Machine[] = [];
  readonly samples: EventSample[] = [];

  constructor(private readonly o: EventScriptOptions) {
    for (const { asin, marketplace } of o.books) {
      const targets = { keyword: keywordsTargetId(asin, marketplace), bsr: bookTargetId(asin, marketplace) };
      for (const kind of ['keyword', 'bsr'] as const) {
        this.machines.push({
          kind,
          asin,
          marketplace,
          targetId: targets[kind],
          phase: 'wait-drop',
          dueAt: 0,
          restoredAt: 0,
        });
      }
    }
  }

  /** Puts every signal at its home value; the first drop follows once a poll has seen it there. */
  async setUp(): Promise<void> {
    for (const m of this.machines) {
      m.restoredAt = await this.apply(this.event(m, false));
      m.phase = 'await-observe';
      m.dueAt = Number.POSITIVE_INFINITY;
    }
  }

  nextDue(): number {
    let next = Number.POSITIVE_INFINITY;
    for (const m of this.machines) {
      if (m.phase === 'wait-drop' || m.phase === 'restore') next = Math.min(next, m.dueAt);
      if (m.phase === 'armed') next = Math.min(next, m.dueAt);
    }
    return next;
  }

  /** Applies what is due at `now`: drops, restores, and gives up on events never detected. */
  async tick(now: number): Promise<void> {
    for (const m of this.machines) {
      if (m.dueAt > now) continue;
      if (m.phase === 'wait-drop') {
        // Armed before the call: a poll may see the event and alert before its answer arrives here.
        const cadenceMs = this.o.cadenceOf(m.targetId);
        const sample: EventSample = {
          kind: m.kind,
          asin: m.asin,
          appliedAt: Number.NaN,
          cadenceMs,
          detected: false,
          missed: false,
        };
        m.sample = sample;
        m.phase = 'armed';
        m.dueAt = Number.POSITIVE_INFINITY;
        sample.appliedAt = await this.apply(this.event(m, true));
        this.samples.push(sample);
        if (m.detection !== undefined) this.detect(m, m.detection);
        else m.dueAt = sample.appliedAt + 10 * cadenceMs + 24 * HOUR;
        continue;
      } else if (m.phase === 'armed') {
        if (m.sample !== undefined) m.sample.missed = true;
        m.phase = 'restore';
      }
      if (m.phase === 'restore') {
        m.restoredAt = await this.apply(this.event(m, false));
        m.phase = 'await-observe';
        m.dueAt = Number.POSITIVE_INFINITY;
      }
    }
  }

  /** An alert from a poll: the detection of an armed event, if it is one. */
  onAlert(alert: Alert, poll: PollInfo, alertAt: number): void {
    if (alert.status !== 'firing') return;
    const kind =
      alert.kind === 'keyword_rank_drop' && alert.subject.keyword === SIGNAL_KEYWORD
        ? 'keyword'
        : alert.kind === 'bsr_worsened'
          ? 'bsr'
          : undefined;
    if (kind === undefined) return;
    const m = this.machines.find(
      (x) => x.kind === kind && x.asin === alert.subject.asin && x.phase === 'armed',
    );
    if (m === undefined || m.detection !== undefined) return;
    m.detection = { poll, alertAt, processingMs: this.o.monotonic() - poll.startReal };
    if (!Number.isNaN(m.sample?.appliedAt ?? Number.NaN)) this.detect(m, m.detection);
  }

  private detect(m: Machine, d: NonNullable<Machine['detection']>): void {
    const s = m.sample!;
    s.detected = true;
    s.alertAt = d.alertAt;
    // A poll scheduled before the event that only ran after it (lag) would have missed it at 1×:
    // the wait is then to the target's next scheduled poll after the event.
    let at = d.poll.scheduledAt;
    while (at < s.appliedAt) at += d.poll.cadenceMs;
    s.waitMs = at - s.appliedAt;
    s.processingMs = d.processingMs;
    m.detection = undefined;
    m.phase = 'restore';
    m.dueAt = this.o.now();
  }

  /** A poll finished ok: a restored signal counts as seen once a poll scheduled after it ran. */
  onPollDone(poll: PollInfo): void {
    for (const m of this.machines) {
      if (m.targetId !== poll.targetId) continue;
      // Its alert would have come before the poll returned: a poll that surely saw the event and
      // raised nothing is a miss.
      if (m.phase === 'armed' && m.sample !== undefined && poll.scheduledAt >= m.sample.appliedAt) {
        m.sample.missed = true;
        m.phase = 'restore';
        m.dueAt = this.o.now();
        continue;
      }
      if (m.phase !== 'await-observe' || poll.scheduledAt < m.restoredAt) continue;
      const cadence = this.o.cadenceOf(m.targetId);
      m.phase = 'wait-drop';
      m.dueAt = this.o.now() + (m.kind === 'bsr' ? 26 * HOUR : cadence) + this.o.random() * cadence;
    }
  }

  /** Applies an event now; returns the sim time it was applied at (it is visible from then on). */
  private async apply(event: SimEventInput): Promise<number> {
    const answer = await this.o.control.event(event);
    return Date.parse(answer.applied_at ?? '');
  }

  private event(m: Machine, drop: boolean): SimEventInput {
    // The machines' marketplaces come from the simulator's own world, so they are its marketplaces.
    const marketplace = m.marketplace as Marketplace;
    return m.kind === 'keyword'
      ? {
          type: 'keyword_rank',
          asin: m.asin,
          keyword: SIGNAL_KEYWORD,
          marketplace,
          rank: drop ? KEYWORD_DROP : KEYWORD_HOME,
        }
      : { type: 'bsr', asin: m.asin, marketplace, rank: drop ? BSR_SPIKE : BSR_HOME };
  }
}
