/**
 * The shared local receivers' own options (the delivery tests exercise scripting, refusals and
 * waiting): the default answer and its body limit, an injected clock, and the SMTP receiver kept
 * raw with a hook that runs, or refuses, before the 250.
 */
import { createTransport } from 'nodemailer';
import { describe, expect, it } from 'vitest';
import { startHttpReceiver } from '../../src/tools/receivers/http.ts';
import { startSmtpReceiver } from '../../src/tools/receivers/smtp.ts';
import { stopAfterEach } from '../helpers/cleanup.ts';

const defer = stopAfterEach();

describe('the HTTP receiver', () => {
  it('answers with the default answer, stamps with its clock, and refuses a body over the limit', async () => {
    const receiver = await startHttpReceiver('/hook', {
      clock: () => 42,
      maxBodyBytes: 10,
      answer: (request) => ({ status: 202, body: `took ${request.raw.length}` }),
    });
    defer(() => receiver.close());
    receiver.respondWith(429, 'slow down', { 'retry-after': '3' });

    const first = await fetch(receiver.url, { method: 'POST', body: '{"a":1}' });
    expect([first.status, first.headers.get('retry-after'), await first.text()]).toEqual([
      429,
      '3',
      'slow down',
    ]);
    const second = await fetch(receiver.url, { method: 'POST', body: '{"a":2}' });
    expect([second.status, await second.text()]).toEqual([202, 'took 7']);
    const tooBig = await fetch(receiver.url, { method: 'POST', body: 'x'.repeat(11) });
    expect(tooBig.status).toBe(413);

    const got = await receiver.waitForMessages(2, 2_000);
    expect(got.map((r) => [r.receivedAt, r.path, r.body])).toEqual([
      [42, '/hook', { a: 1 }],
      [42, '/hook', { a: 2 }],
    ]);
    expect(receiver.requests).toHaveLength(2);
    await expect(receiver.waitForMessages(3, 50)).rejects.toThrow('expected 3 messages within 50 ms, got 2');
  });
});

describe('the SMTP receiver', () => {
  it('keeps messages raw when asked, runs the hook before accepting, and answers 451 when it throws', async () => {
    let storeFails = false;
    const seen: string[] = [];
    const receiver = await startSmtpReceiver({
      parse: false,
      clock: () => 7,
      onMessage(message) {
        if (storeFails) throw new Error('disk full');
        seen.push(message.to.join(','));
      },
    });
    defer(() => receiver.close());
    const transport = createTransport(receiver.url);
    defer(() => transport.close());
    const mail = { from: 'a@example.com', to: 'b@example.com', subject: 'hello', text: 'hi' };

    await transport.sendMail(mail);
    expect(seen).toEqual(['b@example.com']);
    const [got] = await receiver.waitForMessages(1, 2_000);
    expect([got?.receivedAt, got?.from, got?.mail]).toEqual([7, 'a@example.com', undefined]);
    expect(got?.raw.toString()).toContain('Subject: hello');

    storeFails = true;
    await expect(transport.sendMail(mail)).rejects.toMatchObject({ responseCode: 451 });
    expect(receiver.messages).toHaveLength(1);
  });
});
