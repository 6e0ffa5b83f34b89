/**
 * A local stand-in for any webhook-style HTTP endpoint (Slack's incoming webhooks, Discord, Teams,
 * Telegram, ntfy, a generic webhook) on 127.0.0.1, shared by the tests, the demo and the benchmarks.
 * It records every request, whatever its path, and answers 200 "ok" unless a script (`respondWith`)
 * or the `answer` option says otherwise: a 429 with Retry-After, a refusal, a hang.
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Arrivals, DEFAULT_WAIT_MS } from './arrivals.ts';

export interface ReceivedRequest {
  /** The receiver's clock (`Date.now()` unless `clock` was given) when the body had fully arrived. */
  receivedAt: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  /** The parsed JSON body, or undefined when it was not JSON. */
  body: unknown;
}

export interface Reply {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

/** Answers a request; may take its time (a promise resolved later stands for a hang). */
export type Responder = (request: ReceivedRequest) => Reply | Promise<Reply>;

export interface HttpReceiverOptions {
  /** Stamps `receivedAt`; the benchmarks pass a monotonic clock. */
  clock?: () => number;
  /** The answer when nothing is scripted; 200 "ok", as Slack answers, by default. */
  answer?: Responder;
  /** A bigger body is answered 413 and not recorded; no limit by default. */
  maxBodyBytes?: number;
}

export interface HttpReceiver {
  /** The origin with the receiver's path: the webhook URL to configure. */
  readonly url: string;
  readonly origin: string;
  readonly requests: readonly ReceivedRequest[];
  /** Answers the next `times` requests with this reply (queued after earlier scripts). */
  respondWith(status: number, body?: string, headers?: Record<string, string>, times?: number): void;
  respondWith(responder: Responder, times?: number): void;
  /** Resolves with the first `n` requests once they have arrived; rejects after `timeoutMs`. */
  waitForMessages(n: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** Shaped like a Slack webhook path; its last segment is the secret a real one carries. */
export const DEFAULT_WEBHOOK_PATH = '/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX';

const OK: Reply = { status: 200, body: 'ok' };

/** The body as text, or undefined once it passes `limit` (the rest is not read). */
async function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

export async function startHttpReceiver(
  path = DEFAULT_WEBHOOK_PATH,
  options: HttpReceiverOptions = {},
): Promise<HttpReceiver> {
  const { clock = Date.now, answer = () => OK, maxBodyBytes = Number.POSITIVE_INFINITY } = options;
  const arrivals = new Arrivals<ReceivedRequest>();
  const script: { responder: Responder; left: number }[] = [];

  const nextResponder = (): Responder => {
    const head = script[0];
    if (head === undefined) return answer;
    head.left -= 1;
    if (head.left <= 0) script.shift();
    return head.responder;
  };

  const server = createServer((req, res) => {
    const send = (reply: Reply): void => {
      if (res.destroyed) return; // the client gave up (a timeout test)
      res.writeHead(reply.status, { 'content-type': 'text/html', ...reply.headers });
      res.end(reply.body ?? '');
    };
    readBody(req, maxBodyBytes)
      .then((raw) => {
        if (raw === undefined) return send({ status: 413, body: 'payload_too_large' });
        const request: ReceivedRequest = {
          receivedAt: clock(),
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          raw,
          body: parseJson(raw),
        };
        arrivals.push(request);
        // Picked on arrival, before any await, so scripted answers go to requests in arrival order.
        return Promise.resolve(nextResponder()(request)).then(send);
      })
      .catch(() => res.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    url: origin + path,
    origin,
    requests: arrivals.items,
    respondWith(first: number | Responder, ...rest: unknown[]): void {
      if (typeof first === 'function') {
        script.push({ responder: first, left: typeof rest[0] === 'number' ? rest[0] : 1 });
        return;
      }
      const [body, headers, times] = rest as [
        string | undefined,
        Record<string, string> | undefined,
        number?,
      ];
      const reply: Reply = { status: first, body: body ?? '', ...(headers === undefined ? {} : { headers }) };
      script.push({ responder: () => reply, left: times ?? 1 });
    },
    waitForMessages: (n, timeoutMs = DEFAULT_WAIT_MS) => arrivals.waitFor(n, timeoutMs),
    async close(): Promise<void> {
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}
