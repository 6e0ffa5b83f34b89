/**
 * The demo's Slack: the shared local HTTP receiver on a random webhook path (like a real webhook's,
 * so nothing else on this machine posts to it by accident). Every message the Slack channel posts is
 * written as JSON into the demo folder and answered `200 ok`, as Slack would.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Reply, startHttpReceiver } from '../receivers/http.ts';

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

export async function startSlackCapture(
  dir: string,
  onMessage: (message: CapturedSlackMessage) => void,
): Promise<SlackCapture> {
  const messages: CapturedSlackMessage[] = [];
  let received = 0;
  const path = `/services/TDEMO0000/BDEMO0000/${randomBytes(12).toString('hex')}`;
  const plain = (status: number, body: string): Reply => ({
    status,
    body,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
  });

  const receiver = await startHttpReceiver(path, {
    maxBodyBytes: MAX_BODY_BYTES,
    async answer(request) {
      if (request.method !== 'POST' || request.path !== path) return plain(404, 'no_service');
      const body = request.body;
      if (typeof body !== 'object' || body === null) return plain(400, 'invalid_payload');
      const text = (body as { text?: unknown }).text;
      // Numbered on arrival (before any await), so two posts at once never share a file name.
      received += 1;
      const file = join(dir, `${String(received).padStart(3, '0')}.json`);
      try {
        // Written before the answer: once the channel has its 200, the file is there to look at.
        await writeFile(file, `${JSON.stringify(body, null, 2)}\n`);
      } catch {
        return plain(500, 'capture_failed');
      }
      const message = { path: file, text: typeof text === 'string' ? text : '' };
      messages.push(message);
      onMessage(message);
      return plain(200, 'ok');
    },
  });
  return { url: receiver.url, messages, close: () => receiver.close() };
}
