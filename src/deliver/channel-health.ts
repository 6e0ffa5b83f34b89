import type { Cluster, Redis } from 'ioredis';
import type { ChannelConfig } from '../config/schema.ts';
import type { Alert } from '../model/alert.ts';
import { fingerprint } from '../rules/fingerprint.ts';
import { channelPace } from './channels/registry.ts';
import type { DeliveryError } from './notifier.ts';
import type { ChannelSettings } from './processor.ts';

/**
 * Channels broken for good (a Slack webhook whose channel was deleted or archived): marked in Redis
 * so every worker stops sending there at once, until an operator retries its dead letters.
 */
export class ChannelHealth {
  constructor(
    private readonly redis: Redis | Cluster,
    private readonly prefix: string,
  ) {}

  private key(channelId: string): string {
    return `${this.prefix}:disabled:${channelId}`;
  }

  async disable(channelId: string, reason: string): Promise<void> {
    await this.redis.set(this.key(channelId), reason);
  }

  async enable(channelId: string): Promise<void> {
    await this.redis.del(this.key(channelId));
  }

  disabledReason(channelId: string): Promise<string | null> {
    return this.redis.get(this.key(channelId));
  }
}

/** The health alert sent through the other channels when one is disabled. */
export function channelDisabledAlert(channelId: string, error: DeliveryError, nowMs: number): Alert {
  const subject = { targetId: `channel/${channelId}` };
  const day = new Date(nowMs).toISOString().slice(0, 10);
  return {
    fingerprint: fingerprint({
      workspace: '*',
      ruleId: 'channel-health',
      kind: 'source_health',
      subject,
      observation: `disabled:${error.status ?? 'unknown'}:${day}`,
    }),
    workspace: '*',
    ruleId: 'channel-health',
    kind: 'source_health',
    severity: 'critical',
    status: 'firing',
    subject,
    title: `Channel "${channelId}" refused delivery for good (${error.status ?? 'error'}) and was disabled`,
    facts: { channel: channelId, status: error.status ?? null, reason: error.message.slice(0, 300) },
    observedAt: nowMs,
  };
}

/** Grouping and quiet hours from the config; pacing from each channel's plug-in (its documented limits). */
export function channelSettings(channels: readonly ChannelConfig[]): Map<string, ChannelSettings> {
  const settings = new Map<string, ChannelSettings>();
  for (const channel of channels) {
    settings.set(channel.id, {
      groupWaitMs: channel.groupWait,
      groupIntervalMs: channel.groupInterval,
      ...(channel.quietHours === undefined ? {} : { quietHours: channel.quietHours }),
      ...channelPace(channel),
    });
  }
  return settings;
}
