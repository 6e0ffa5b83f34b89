/**
 * Answers that are hostile on the wire, through the real client and poll processor: a body that
 * never ends, a body that drips, a connection cut mid-body, a length that lies. Each poll must end
 * as an error outcome in bounded time and memory, with the baseline kept and no alert.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PollResult } from '../../src/poll/processor.ts';
import { testPrefix, testRedis } from '../helpers/redis.ts';
import {
  type Answer,
  book,
  CHANGE_KINDS,
  type HostileApi,
  startHostileApi,
  TARGETS,
  WORKSPACE,
} from './fixtures/api-payloads.ts';

const prefix = testPrefix('rel-wire');
const redis = testRedis(prefix);
let api: HostileApi;
const REF = { workspace: WORKSPACE, kind: 'book' as const, id: TARGETS.book };

beforeAll(async () => {
  api = await startHostileApi(redis, prefix);
  expect(await api.harness.poll(TARGETS.book)).toMatchObject({ status: 'ok', baseline: true });
});

afterAll(async () => {
  await api?.close();
});

/**
 * Polls the book target with `answer`, giving up after `deadlineMs`. A poll still running then is
 * cut off (the server drops its connections) and waited for, so it cannot touch the next test.
 */
async function pollWithin(answer: Answer, deadlineMs: number): Promise<PollResult | 'still running'> {
  const valid = api.play.book;
  api.play.book = answer;
  const alertsBefore = api.sink.alerts.length;
  const stored = await api.harness.store.get(REF);
  let timer: NodeJS.Timeout | undefined;
  let polled: Promise<PollResult> | undefined;
  try {
    polled = api.harness.poll(TARGETS.book);
    polled.catch(() => {}); // a poll left running is awaited below
    const outcome = await Promise.race([
      polled,
      new Promise<'still running'>((resolve) => {
        timer = setTimeout(() => resolve('still running'), deadlineMs);
      }),
    ]);
    if (outcome !== 'still running') {
      expect(api.sink.alerts.slice(alertsBefore).filter((a) => CHANGE_KINDS.has(a.kind))).toEqual([]);
      expect(await api.harness.store.get(REF)).toEqual(stored);
    }
    return outcome;
  } finally {
    clearTimeout(timer);
    api.play.book = valid;
    api.server.dropConnections();
    await polled?.catch(() => {});
  }
}

const MB = 1024 * 1024;

/** Writes `chunk` as fast as the client reads it, up to `limit` bytes, then stalls without ending. */
function flood(limit: number, sent: number[]): Answer {
  return (res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(MB, 0x20);
    let written = 0;
    const at = sent.push(0) - 1;
    const pump = () => {
      while (written < limit && !res.destroyed) {
        written += chunk.length;
        sent[at] = written;
        if (!res.write(chunk)) return;
      }
    };
    res.on('drain', pump);
    res.write('{"asin":"');
    pump();
  };
}

describe('bodies that never end', () => {
  it('an endless body is cut off by a size limit: the client stops reading long before 64 MB', async () => {
    const sent: number[] = [];
    // Today the client reads it all (no size limit; body.text()), then waits for the body timeout:
    // an endless answer grew one process to 10 GB in a minute in a manual run.
    const outcome = await pollWithin(flood(64 * MB, sent), 15_000);
    expect(outcome).toMatchObject({ status: 'error' });
    expect(sent.length).toBeGreaterThan(0);
    for (const bytes of sent) expect(bytes).toBeLessThan(64 * MB);
  }, 30_000);

  it('a body that drips a byte at a time is cut off by a deadline for the whole answer', async () => {
    // A byte every 250 ms never trips undici's bodyTimeout (2 s here, between chunks), so today
    // the poll waits for as long as the server keeps dripping: one poll slot held indefinitely.
    const drip: Answer = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
      const timer = setInterval(() => {
        if (res.destroyed) clearInterval(timer);
        else res.write(' ');
      }, 250);
      res.on('close', () => clearInterval(timer));
    };
    const outcome = await pollWithin(drip, 10_000);
    expect(outcome, 'the poll was still waiting on the dripping answer after 10 s').toMatchObject({
      status: 'error',
    });
  }, 30_000);
});

describe('broken transfers', () => {
  const text = JSON.stringify(book());
  const cases: [string, Answer][] = [
    [
      'a Content-Length longer than the body, then the connection closes',
      (res) => {
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-length': String(text.length + 500),
        });
        res.end(text);
        res.socket?.destroy();
      },
    ],
    [
      'the connection reset half-way through the body',
      (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(text.slice(0, 100));
        setTimeout(() => res.socket?.resetAndDestroy(), 20);
      },
    ],
    [
      'a gzip body without asking for one',
      (res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad, 0xbe, 0xef]));
      },
    ],
    [
      'a body in UTF-16 with a byte-order mark',
      (res) => {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-16' });
        res.end(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
      },
    ],
    [
      'status 200 with a JSON error body',
      (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"error":{"code":"internal","message":"upstream timeout"}}');
      },
    ],
    [
      'status 204 with no body',
      (res) => {
        res.writeHead(204);
        res.end();
      },
    ],
    [
      'a 301 to somewhere else',
      (res) => {
        res.writeHead(301, { location: 'http://169.254.169.254/latest/meta-data/' });
        res.end();
      },
    ],
  ];

  it.each(cases)(
    '%s: an error outcome, baseline kept',
    async (_name, answer) => {
      const outcome = await pollWithin(answer, 8_000);
      expect(outcome).toMatchObject({ status: 'error' });
    },
    20_000,
  );

  it('after all of it the valid answer is still no change', async () => {
    expect(await api.harness.poll(TARGETS.book)).toMatchObject({ status: 'ok', alerts: 0 });
    expect(api.sink.alerts.filter((a) => CHANGE_KINDS.has(a.kind))).toEqual([]);
  });
});
