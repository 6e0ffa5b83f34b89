/** The generic webhook's harness: a receiver that verifies the signature as a consumer would. */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { expect } from 'vitest';
import type { ReceivedRequest } from '../../../src/tools/receivers/http.ts';
import { startHttpReceiver } from '../../../src/tools/receivers/http.ts';
import { buildChannel, requestReader } from './harness.ts';
import type { RunningChannel } from './suite.ts';

const URL_TOKEN = 'HookT0kenDoNotLeak42';
const KEY = Buffer.from('a signing key of thirty-two bytes');
export const WEBHOOK_SECRET = `whsec_${KEY.toString('base64')}`;
const TOLERANCE_S = 300;

/**
 * Standard Webhooks verification, written from the spec (not from our sender): HMAC-SHA256 over
 * "id.timestamp.body" with the key, base64, compared in constant time; a stale timestamp is refused.
 */
export function verifyStandardWebhook(request: ReceivedRequest, key: Buffer, nowS: number): boolean {
  const id = request.headers['webhook-id'];
  const timestamp = request.headers['webhook-timestamp'];
  const signatures = request.headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') return false;
  if (Math.abs(nowS - Number(timestamp)) > TOLERANCE_S) return false;
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${request.raw}`).digest();
  return signatures.split(' ').some((entry) => {
    const [version, mac = ''] = entry.split(',');
    const given = Buffer.from(mac, 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

interface Payload {
  version: number;
  totalCount: number;
  more: number;
  alerts: { title: string; facts: Record<string, unknown> }[];
}

export async function webhookHarness(): Promise<RunningChannel> {
  const receiver = await startHttpReceiver(`/webhook/${URL_TOKEN}`);
  const built = buildChannel({
    id: 'conf-webhook',
    type: 'webhook',
    url: receiver.url,
    secret: WEBHOOK_SECRET,
  });
  const next = requestReader(receiver);
  return {
    notifier: built.notifier,
    secrets: [URL_TOKEN, WEBHOOK_SECRET, KEY.toString('base64')],
    nextDelivered: async () => {
      const request = await next();
      expect(verifyStandardWebhook(request, KEY, Date.now() / 1000), 'signature').toBe(true);
      const tampered = { ...request, raw: request.raw.replace('"version":1', '"version":2') };
      expect(verifyStandardWebhook(tampered, KEY, Date.now() / 1000)).toBe(false);
      const payload = JSON.parse(request.raw) as Payload;
      expect(payload.version).toBe(1);
      // JSON is the escaping; the "…and N more" is for people reading the check below.
      return payload.more > 0 ? `${request.raw}\n…and ${payload.more} more` : request.raw;
    },
    expectWithinLimits: (delivered) => {
      const payload = JSON.parse(delivered.split('\n')[0] ?? '') as Payload;
      expect(payload.alerts.length).toBeLessThanOrEqual(50);
      expect(payload.totalCount - payload.alerts.length).toBe(payload.more);
      for (const alert of payload.alerts)
        expect(String(alert.facts.body ?? '').length).toBeLessThanOrEqual(2_000);
      expect(delivered.length).toBeLessThan(256_000);
    },
    forbidden: ['\u202E'],
    rateLimited: () => {
      receiver.respondWith(429, '{"error":"slow down"}', { 'retry-after': '3' });
      return 3_000;
    },
    serverError: () => receiver.respondWith(502, 'bad gateway'),
    refusedForGood: () => receiver.respondWith(410, `gone: ${receiver.url}`),
    logged: built.logged,
    close: async () => {
      await built.notifier.close?.();
      await receiver.close();
    },
  };
}
