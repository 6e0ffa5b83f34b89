/** Shared pieces of the channel harnesses: building a channel from its config, capturing logs. */
import { Writable } from 'node:stream';
import type { Notifier } from '../../../src/channels/notifier.ts';
import { createChannelNotifier } from '../../../src/channels/registry.ts';
import { createSmtpPool, type SmtpPool } from '../../../src/channels/smtp-pool.ts';
import { channelSchema } from '../../../src/config/channels.ts';
import { createLogger, type Logger } from '../../../src/ops/logger.ts';
import type { HttpReceiver } from '../../../src/tools/receivers/http.ts';
import { systemClock } from '../../../src/util/clock.ts';

export interface Built {
  notifier: Notifier;
  logger: Logger;
  /** Log lines written since the last call. */
  takeLines(): string[];
  logged(): string;
  smtp: SmtpPool;
}

/** Parses a raw channel config through the registry's schema and builds it as `run` does. */
export function buildChannel(raw: Record<string, unknown>): Built {
  const lines: string[] = [];
  let taken = 0;
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(
        ...chunk
          .toString()
          .split('\n')
          .filter((line) => line !== ''),
      );
      done();
    },
  });
  const logger = createLogger({ destination });
  const smtp = createSmtpPool();
  const config = channelSchema.parse(raw);
  const notifier = createChannelNotifier(config, { logger, smtp, clock: systemClock });
  return {
    notifier,
    logger,
    smtp,
    takeLines: () => {
      const out = lines.slice(taken);
      taken = lines.length;
      return out;
    },
    logged: () => lines.join('\n'),
  };
}

/** The next request a receiver got, after the ones already read. */
export function requestReader(receiver: HttpReceiver) {
  let read = 0;
  return async () => {
    const requests = await receiver.waitForMessages(read + 1, 5_000);
    const request = requests[read];
    read += 1;
    if (request === undefined) throw new Error('no request');
    return request;
  };
}

export function jsonOf(text: string): unknown {
  return JSON.parse(text) as unknown;
}
