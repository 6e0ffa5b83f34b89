/**
 * A stand-in for Slack's incoming-webhook endpoint on 127.0.0.1: every message the Slack channel
 * posts is written as JSON into the demo folder and answered `200 ok`, as Slack would. The
 * webhook path is random, like a real webhook's, so nothing else on this machine posts to it by
 * accident.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export interface CapturedSlackMessage {
  path: string;
  /** The message's plain `text` fallback, as Slack shows it in notifications. */
  text: string;
}

export interface SlackCapture {
  /** The webhook URL to configure (plain http on loopback: `allowAnyHost: true`). */
  readonly url: string;
  readonly messages: readonly CapturedSlackMessage[];
  close(): Promise<void>;
}

/** Slack's payload limit is far below this; a bigger body is not from our channel. */
const MAX_BODY_BYTES = 1_000_000;

function reply(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function startSlackCapture(
  dir: string,
  onMessage: (message: CapturedSlackMessage) => void,
): Promise<SlackCapture> {
  const messages: CapturedSlackMessage[] = [];
  let received = 0;
  const path = `/services/TDEMO0000/BDEMO0000/${randomBytes(12).toString('hex')}`;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'POST' || req.url !== path) return reply(res, 404, 'no_service');
    const raw = await readBody(req);
    let body: unknown;
    try {
      body = raw === undefined ? undefined : JSON.parse(raw);
    } catch {
      body = undefined;
    }
    if (typeof body !== 'object' || body === null) return reply(res, 400, 'invalid_payload');
    const text = (body as { text?: unknown }).text;
    // Numbered on arrival (before any await), so two posts at once never share a file name.
    received += 1;
    const file = join(dir, `${String(received).padStart(3, '0')}.json`);
    // Written before the answer: once the channel has its 200, the file is there to look at.
    await writeFile(file, `${JSON.stringify(body, null, 2)}\n`);
    const message = { path: file, text: typeof text === 'string' ? text : '' };
    messages.push(message);
    onMessage(message);
    reply(res, 200, 'ok');
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) reply(res, 500, 'capture_failed');
      else res.destroy();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    messages,
    async close() {
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}
