/** Each HTTP channel's reading of its own answers, beyond the shared conformance suite. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryError, type Notifier } from '../../src/channels/notifier.ts';
import { createNtfyNotifier } from '../../src/channels/ntfy.ts';
import { createTelegramNotifier } from '../../src/channels/telegram.ts';
import { Secret } from '../../src/config-kit/secret.ts';
import { sampleMessage } from '../../src/deliver/sample-alert.ts';
import { type HttpReceiver, startHttpReceiver } from '../../src/tools/receivers/http.ts';

let receiver: HttpReceiver;
let ntfy: Notifier;
let telegram: Notifier;

beforeAll(async () => {
  receiver = await startHttpReceiver('/');
  ntfy = createNtfyNotifier({ id: 'n', serverUrl: receiver.origin, topic: new Secret('alerts') });
  telegram = createTelegramNotifier({
    id: 't',
    botToken: new Secret('1:abcdefghijklmnopqrstuvwxyz'),
    chatId: '42',
    apiUrl: receiver.origin,
  });
});

afterAll(async () => {
  await ntfy.close?.();
  await telegram.close?.();
  await receiver.close();
});

async function failure(notifier: Notifier): Promise<DeliveryError> {
  const error = await notifier.send(sampleMessage(notifier.id, Date.now()), AbortSignal.timeout(5_000)).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DeliveryError);
  return error as DeliveryError;
}

describe('ntfy', () => {
  it('waits out a 429 without Retry-After for two of its 5 s replenish intervals', async () => {
    receiver.respondWith(429, '{"code":42901,"http":429,"error":"limit reached: too many requests"}');
    const error = await failure(ntfy);
    expect([error.retryable, error.retryAfterMs]).toEqual([true, 10_000]);
  });

  it('reports a message too large as ours, leaving the channel on', async () => {
    receiver.respondWith(413, '{"code":41301,"http":413,"error":"message too large"}');
    const error = await failure(ntfy);
    expect([error.retryable, error.disableChannel]).toEqual([false, false]);
  });
});

describe('telegram', () => {
  it('reports a 400 about the message as ours, and one about the chat as the channel gone', async () => {
    receiver.respondWith(
      400,
      '{"ok":false,"error_code":400,"description":"Bad Request: can\'t parse entities"}',
    );
    const ours = await failure(telegram);
    expect([ours.retryable, ours.disableChannel]).toEqual([false, false]);
    receiver.respondWith(
      400,
      '{"ok":false,"error_code":400,"description":"Bad Request: group chat was upgraded to a supergroup chat"}',
    );
    const gone = await failure(telegram);
    expect([gone.retryable, gone.disableChannel]).toEqual([false, true]);
  });
});
