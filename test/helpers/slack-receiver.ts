/**
 * A stand-in for Slack's incoming-webhook endpoint: a real HTTP server on 127.0.0.1 that records
 * every request and answers 200 "ok" unless a test scripts another answer. Waiting is event-based
 * with a deadline, never a fixed sleep.
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  /** `Date.now()` when the request's body had fully arrived. */
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

/** Answers a request; may take its time (a promise the test resolves later, to simulate a hang). */
export type Responder = (request: ReceivedRequest) => Reply | Promise<Reply>;

export interface SlackReceiver {
  /** A webhook-shaped URL on this server. */
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

export const DEFAULT_WEBHOOK_PATH = '/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX';

export async function startSlackReceiver(path = DEFAULT_WEBHOOK_PATH): Promise<SlackReceiver> {
  const requests: ReceivedRequest[] = [];
  const script: { responder: Responder; left: number }[] = [];
  const waiters = new Set<() => void>();

  const nextResponder = (): Responder | undefined => {
    const head = script[0];
    if (head === undefined) return undefined;
    head.left--;
    if (head.left <= 0) script.shift();
    return head.responder;
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      const record: ReceivedRequest = {
        receivedAt: Date.now(),
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        raw,
        body,
      };
      requests.push(record);
      for (const wake of waiters) wake();
      const responder: Responder = nextResponder() ?? (() => ({ status: 200, body: 'ok' }));
      Promise.resolve(responder(record)).then(
        (reply) => {
          if (res.destroyed) return; // the client gave up (a timeout test)
          res.writeHead(reply.status, { 'content-type': 'text/html', ...reply.headers });
          res.end(reply.body ?? '');
        },
        () => res.destroy(),
      );
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    url: origin + path,
    origin,
    requests,
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
    waitForMessages(n: number, timeoutMs = 5_000): Promise<ReceivedRequest[]> {
      return new Promise((resolve, reject) => {
        const check = (): boolean => {
          if (requests.length < n) return false;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(requests.slice(0, n));
          return true;
        };
        const wake = (): void => {
          check();
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`expected ${n} messages within ${timeoutMs} ms, got ${requests.length}`));
        }, timeoutMs);
        if (!check()) waiters.add(wake);
      });
    },
    async close(): Promise<void> {
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}
