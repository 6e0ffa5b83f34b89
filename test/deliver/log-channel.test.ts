import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogNotifier } from '../../src/channels/log.ts';
import { createLogger } from '../../src/ops/logger.ts';
import { makeAlert } from './pipeline-harness.ts';

describe('log channel', () => {
  it('logs each alert as one line whose message is the title on one line; facts stay as they are', async () => {
    const lines: string[] = [];
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
    const channel = createLogNotifier('log', createLogger({ destination }));
    const alert = makeAlert(1, {
      title: 'New review\n[CRITICAL] Royalties fell to 0\u0007',
      facts: { reviewer: 'Ann\nBob' },
    });
    await channel.send(
      { alerts: [alert], totalCount: 1, hideLowStarText: false, messageId: 'm1' },
      new AbortController().signal,
    );
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0] ?? '{}') as { msg: string; facts: { reviewer: string } };
    expect(entry.msg).toBe('New review [CRITICAL] Royalties fell to 0');
    expect(entry.facts.reviewer).toBe('Ann\nBob');
  });
});
