/**
 * Local stand-ins for the delivery endpoints of the alert-storm benchmark: a Slack incoming-webhook
 * receiver (HTTP, answers 200 "ok") and an SMTP server (smtp-server) that keeps each message's raw
 * bytes. Both record the monotonic time a message arrived; parsing happens after the storm so it
 * does not slow the servers down while they are being measured.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { monotonicMs } from './sim-process.ts';

export interface Received {
  at: number;
  body: string;
}

export interface Receiver {
  url: string;
  readonly received: readonly Received[];
  close(): Promise<void>;
}

export async function startSlackReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ at: monotonicMs(), body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('ok');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/services/T000BENCH/B000BENCH/benchbenchbenchbenchbench`,
    received,
    async close() {
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}

export async function startSmtpReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({ at: monotonicMs(), body: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  server.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}?ignoreTLS=true`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
