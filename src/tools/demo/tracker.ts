/**
 * What the demo has seen so far, fed by the workers' events and by the channels' confirmed sends:
 * the figures the progress display shows and the conditions the story waits for. Every change
 * emits `change`; milestones emit `note` (one line each, for the log of the run).
 */
import { EventEmitter } from 'node:events';
import type { Alert } from '../../model/alert.ts';
import type { ScriptedEvent } from './script.ts';

export interface PollCounts {
  ok: number;
  baselines: number;
  noData: number;
  errors: number;
  deferred: number;
}

export interface ChannelCounts {
  type: string;
  messages: number;
  alerts: number;
}

export interface RecentAlert {
  kind: Alert['kind'];
  title: string;
}

const RECENT_KEPT = 4;

export class DemoTracker extends EventEmitter<{ change: []; note: [line: string] }> {
  phase = 'starting';
  readonly polls: PollCounts = { ok: 0, baselines: 0, noData: 0, errors: 0, deferred: 0 };
  alertsRaised = 0;
  readonly channels = new Map<string, ChannelCounts>();
  readonly recent: RecentAlert[] = [];
  scripted: ScriptedEvent[] = [];
  /** Targets that have had an ok poll (their silent baseline is stored). */
  private readonly baselined = new Set<string>();
  /** Channels each alert (by fingerprint) was confirmed on. */
  private readonly sentOn = new Map<string, Set<string>>();

  note(line: string): void {
    this.emit('note', line);
  }

  setPhase(phase: string): void {
    this.phase = phase;
    this.emit('change');
  }

  recordPoll(targetId: string, result: unknown): void {
    const status = statusOf(result);
    if (status === 'ok') {
      this.polls.ok += 1;
      if (isRecord(result) && result.baseline === true) this.polls.baselines += 1;
      this.baselined.add(targetId);
    } else if (status === 'no_data') this.polls.noData += 1;
    else if (status === 'error') this.polls.errors += 1;
    else if (status === 'skipped') this.polls.deferred += 1;
    if (isRecord(result) && typeof result.alerts === 'number') this.alertsRaised += result.alerts;
    this.emit('change');
  }

  recordPollFailure(): void {
    this.polls.errors += 1;
    this.emit('change');
  }

  recordDeferral(): void {
    this.polls.deferred += 1;
    this.emit('change');
  }

  baselinesTaken(targetIds: readonly string[]): boolean {
    return targetIds.every((id) => this.baselined.has(id));
  }

  /** A channel confirmed one message holding these alerts. */
  recordSent(channelId: string, type: string, alerts: readonly Alert[]): void {
    const counts = this.channels.get(channelId) ?? { type, messages: 0, alerts: 0 };
    counts.messages += 1;
    counts.alerts += alerts.length;
    this.channels.set(channelId, counts);
    for (const alert of alerts) {
      const channels = this.sentOn.get(alert.fingerprint) ?? new Set<string>();
      if (channels.size === 0) {
        this.recent.unshift({ kind: alert.kind, title: alert.title });
        this.recent.length = Math.min(this.recent.length, RECENT_KEPT);
      }
      channels.add(channelId);
      this.sentOn.set(alert.fingerprint, channels);
      for (const event of this.scripted) {
        // Only after the event was scripted: a natural alert on the same subject earlier is not its answer.
        if (event.alert === undefined && event.scriptedAt !== undefined && event.matches(alert)) {
          event.alert = alert;
        }
      }
    }
    const first = alerts[0];
    this.note(
      alerts.length === 1 && first !== undefined
        ? `${channelId} got ${first.kind}: ${first.title}`
        : `${channelId} got ${alerts.length} alerts: ${alerts.map((a) => a.kind).join(', ')}`,
    );
    this.emit('change');
  }

  /** Channels that confirmed the alert `fingerprint`. */
  deliveredOn(fingerprint: string): ReadonlySet<string> {
    return this.sentOn.get(fingerprint) ?? new Set();
  }

  /** Resolves once `done()` holds; rejects with the signal's reason when it aborts first. */
  waitFor(done: () => boolean, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const finish = (error?: unknown) => {
        this.off('change', check);
        signal.removeEventListener('abort', onAbort);
        if (error === undefined) resolve();
        else reject(error);
      };
      const check = () => {
        if (done()) finish();
      };
      const onAbort = () => finish(signal.reason);
      if (signal.aborted) return reject(signal.reason);
      this.on('change', check);
      signal.addEventListener('abort', onAbort, { once: true });
      check();
    });
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function statusOf(result: unknown): string | undefined {
  return isRecord(result) && typeof result.status === 'string' ? result.status : undefined;
}
