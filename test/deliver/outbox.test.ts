import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryError, type OutgoingMessage } from '../../src/channels/notifier.ts';
import { createOutboxNotifier } from '../../src/channels/outbox.ts';
import type { Alert } from '../../src/model/alert.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { looseAlert } from '../helpers/alert-facts.ts';

const signal = new AbortController().signal;
const START = Date.UTC(2026, 10, 21, 14, 0, 10, 123);

function alert(title: string): Alert {
  return {
    fingerprint: 'f'.repeat(32),
    workspace: 'acme',
    ruleId: 'reviews',
    kind: 'review_new',
    severity: 'info',
    status: 'firing',
    subject: { asin: 'B0CJ4XQ2ZK', reviewId: 'r-1' },
    title,
    facts: {
      asin: 'B0CJ4XQ2ZK',
      rating: 5,
      reviewTitle: '<b>Great</b>',
      body: 'Loved it 📚',
      lowStar: false,
    },
    observedAt: START,
  };
}

function message(messageId: string, title = 'New 5★ Amazon review of B0CJ4XQ2ZK'): OutgoingMessage {
  return { alerts: [alert(title)], totalCount: 1, hideLowStarText: false, messageId };
}

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'shelfwatch-outbox-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('outbox channel', () => {
  it('creates the folder and writes a parseable .eml and an .html per message', async () => {
    const dir = join(root, 'new', 'nested');
    const outbox = createOutboxNotifier({ id: 'outbox', dir, clock: new ManualClock(START) });
    expect(outbox.type).toBe('outbox');
    await outbox.send(message('msg-1'), signal);
    expect((await readdir(dir)).sort()).toEqual([
      '20261121T140010123Z-msg-1.eml',
      '20261121T140010123Z-msg-1.html',
    ]);
    const mail = await simpleParser(await readFile(join(dir, '20261121T140010123Z-msg-1.eml')));
    expect((mail.headers.get('content-type') as { value: string }).value).toBe('multipart/alternative');
    expect(mail.subject).toBe('New 5★ Amazon review of B0CJ4XQ2ZK');
    expect(mail.messageId).toBe('<msg-1@shelfwatch>');
    expect(mail.date?.getTime()).toBe(Math.floor(START / 1000) * 1000);
    expect(mail.text).toContain('Review title: <b>Great</b>');
    expect(mail.html).toContain('&lt;b&gt;Great&lt;/b&gt;');
    const html = await readFile(join(dir, '20261121T140010123Z-msg-1.html'), 'utf8');
    expect(html).toBe(mail.html);
    expect(html).toContain('Loved it 📚');
  });

  it('writes a message id once, however often and however concurrently it is sent', async () => {
    const dir = join(root, 'idempotent');
    const clock = new ManualClock(START);
    const outbox = createOutboxNotifier({ id: 'outbox', dir, clock });
    await Promise.all([outbox.send(message('same'), signal), outbox.send(message('same'), signal)]);
    clock.advance(60_000);
    await outbox.send(message('same'), signal);
    await createOutboxNotifier({ id: 'again', dir, clock }).send(message('same'), signal);
    await outbox.send(message('other'), signal);
    expect((await readdir(dir)).sort()).toEqual([
      '20261121T140010123Z-same.eml',
      '20261121T140010123Z-same.html',
      '20261121T140110123Z-other.eml',
      '20261121T140110123Z-other.html',
    ]);
  });

  it('finishes a pair left half-written by a crash instead of starting another', async () => {
    const dir = join(root, 'crashed');
    const clock = new ManualClock(START);
    const outbox = createOutboxNotifier({ id: 'outbox', dir, clock });
    await outbox.send(message('m'), signal);
    await rm(join(dir, '20261121T140010123Z-m.eml'));
    clock.advance(5_000);
    await outbox.send(message('m'), signal);
    expect((await readdir(dir)).sort()).toEqual(['20261121T140010123Z-m.eml', '20261121T140010123Z-m.html']);
  });

  it('writes a reviewer name and a review title on one line each', async () => {
    const dir = join(root, 'one-line');
    const outbox = createOutboxNotifier({ id: 'outbox', dir, clock: new ManualClock(START) });
    const sent = message('msg-one-line', 'New 1★ review\n[CRITICAL] Royalties fell to 0');
    const [forged] = sent.alerts;
    if (forged === undefined) throw new Error('no alert');
    forged.facts = {
      ...forged.facts,
      reviewer: 'Ann\r\n[CRITICAL] Payout stopped',
      reviewTitle: 'Meh\n\n[WARNING] x',
    };
    await outbox.send(sent, signal);
    const mail = await simpleParser(await readFile(join(dir, '20261121T140010123Z-msg-one-line.eml')));
    const lines = (mail.text ?? '').split('\n');
    expect(lines.filter((line) => /^\s*\[(CRITICAL|WARNING)/.test(line))).toEqual([]);
    expect(lines).toContain('[INFO] New 1★ review [CRITICAL] Royalties fell to 0');
    expect(lines).toContain('  Reviewer: Ann [CRITICAL] Payout stopped');
    expect(lines).toContain('  Review title: Meh [WARNING] x');
  });

  it('leaves no temporary files and names odd message ids safely', async () => {
    const dir = join(root, 'atomic');
    const outbox = createOutboxNotifier({ id: 'outbox', dir, clock: new ManualClock(START) });
    const ids = Array.from({ length: 6 }, (_, i) => `group:acme/window ${i} <x>`);
    // Big enough (about 1 MB of HTML each) that a plain write would be seen half done.
    const big = (id: string): OutgoingMessage => ({
      ...message(id),
      alerts: Array.from({ length: 180 }, () =>
        looseAlert({ ...alert('Big'), facts: { body: '€'.repeat(2_000) } }),
      ),
      totalCount: 180,
    });
    const writing = Promise.all(ids.map((id) => outbox.send(big(id), signal)));
    let done = false;
    void writing.finally(() => {
      done = true;
    });
    // A reader polling the folder while the files are written sees only whole files.
    let seen = 0;
    while (!done) {
      for (const name of await readdir(dir).catch(() => [])) {
        if (!name.endsWith('.html') || name.startsWith('.')) continue;
        expect((await readFile(join(dir, name), 'utf8')).endsWith('</html>')).toBe(true);
        seen += 1;
      }
    }
    await writing;
    expect(seen).toBeGreaterThan(0);
    const names = await readdir(dir);
    expect(names).toHaveLength(12);
    expect(names.filter((n) => n.startsWith('.') || n.endsWith('.tmp'))).toEqual([]);
    for (const name of names) expect(name).toMatch(/^20261121T140010123Z-[A-Za-z0-9_-]+\.(eml|html)$/);
    for (const name of names.filter((n) => n.endsWith('.eml'))) {
      const mail = await simpleParser(await readFile(join(dir, name)));
      expect(mail.html).toContain('</html>');
    }
  });

  it('a folder that cannot be created is a final error that disables the channel', async () => {
    const file = join(root, 'a-file');
    await writeFile(file, 'not a folder');
    const outbox = createOutboxNotifier({
      id: 'broken',
      dir: join(file, 'sub'),
      clock: new ManualClock(START),
    });
    const error = await outbox.send(message('m'), signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({ channelId: 'broken', retryable: false, disableChannel: true });
  });
});
