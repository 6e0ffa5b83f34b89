import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, isIP } from 'node:net';
import { redact } from '../util/redact.ts';
import { withTimeout } from '../util/timeout.ts';

export interface Readiness {
  ok: boolean;
  /** Check name → `ok` or what is wrong; served as JSON, so it must never hold a secret. */
  checks: Record<string, string>;
}

export interface OpsServerOptions {
  /** From `server.host`; `127.0.0.1` by default so metrics are not published by accident. */
  host: string;
  /** From `server.port`; 0 picks a free port (tests). */
  port: number;
  metrics: { text(): Promise<string>; readonly contentType: string };
  readiness: () => Promise<Readiness>;
  /** A readiness probe that has not answered by then counts as not ready. Default 5 s. */
  readinessTimeoutMs?: number;
  /** From `server.allowedHosts`: host names (not addresses) a scraper may use in Host. */
  allowedHosts?: readonly string[];
}

export interface OpsServer {
  /** e.g. `http://127.0.0.1:9464`, with the port actually bound. */
  readonly url: string;
  /** Stops listening and drops open connections (Prometheus keeps them alive). Safe to call twice. */
  close(): Promise<void>;
}

export class OpsServerListenError extends Error {
  override readonly name = 'OpsServerListenError';
}

const TEXT = 'text/plain; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';

/** `/healthz` (alive), `/readyz` (dependencies answer), `/metrics` (Prometheus); nothing else. */
export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const readinessTimeoutMs = options.readinessTimeoutMs ?? 5_000;

  const routes = new Map<string, (res: ServerResponse) => Promise<void> | void>([
    // Alive is all it says: a dead Redis must not get the process restarted in a loop.
    ['/healthz', (res) => send(res, 200, TEXT, 'ok\n')],
    [
      '/readyz',
      async (res) => {
        let result: Readiness;
        try {
          result = await withTimeout(options.readiness(), readinessTimeoutMs, 'readiness');
        } catch {
          // The reason may carry anything (a URL, a host); the checks themselves report safely.
          result = { ok: false, checks: { readiness: 'the readiness probe failed or timed out' } };
        }
        send(res, result.ok ? 200 : 503, JSON_TYPE, `${JSON.stringify(result)}\n`);
      },
    ],
    [
      '/metrics',
      async (res) => {
        try {
          const body = await options.metrics.text();
          send(res, 200, options.metrics.contentType, body);
        } catch {
          send(res, 500, TEXT, 'metrics unavailable\n');
        }
      },
    ],
  ]);

  const names = new Set((options.allowedHosts ?? []).map((name) => name.toLowerCase()));
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // A DNS-rebinding page reaches us under its own name: only addresses and named hosts pass.
    if (!hostAllowed(req.headers.host, names)) return send(res, 421, TEXT, 'misdirected request\n');
    const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
    const route = routes.get(path);
    // The path is not echoed back: nothing a caller sends is reflected in an answer.
    if (route === undefined) return send(res, 404, TEXT, 'not found\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return send(res, 405, TEXT, 'method not allowed\n');
    }
    await route(res);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, TEXT, 'internal error\n');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      reject(
        new OpsServerListenError(
          `cannot listen on ${options.host}:${options.port} (${error.code ?? error.message}); set server.host / server.port to a free address`,
          { cause: error },
        ),
      );
    };
    server.once('error', onError);
    server.listen(options.port, options.host, () => {
      server.off('error', onError);
      resolve();
    });
  });

  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${host}:${address.port}`,
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

/**
 * The Host header names this server: an IP address (a rebinding attack needs a DNS name, and a
 * page on an address is that address's own origin), `localhost`, or a name in `server.allowedHosts`.
 */
export function hostAllowed(header: string | undefined, names: ReadonlySet<string>): boolean {
  if (header === undefined) return false;
  const host = header.toLowerCase().replace(/:\d+$/, '');
  if (host.startsWith('[') && host.endsWith(']')) return isIP(host.slice(1, -1)) === 6;
  return isIP(host) === 4 || host === 'localhost' || names.has(host);
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(body);
}

/**
 * Builds a readiness probe from named checks: each passes unless it throws or takes longer than
 * `timeoutMs`. A failure is reported by its message with any `user:password@` of a URL removed.
 */
export function readinessChecks(
  checks: Readonly<Record<string, () => unknown>>,
  timeoutMs = 1_000,
): () => Promise<Readiness> {
  return async () => {
    const entries = await Promise.all(
      Object.entries(checks).map(async ([name, check]): Promise<[string, string]> => {
        try {
          const said = await withTimeout(Promise.resolve().then(check), timeoutMs, name);
          // A check may say what it found (the config revision a process runs).
          return [name, typeof said === 'string' && said !== '' ? `ok: ${said}` : 'ok'];
        } catch (error) {
          return [
            name,
            `failing: ${redact(error instanceof Error ? error.message : String(error)).slice(0, 200)}`,
          ];
        }
      }),
    );
    return {
      ok: entries.every(([, state]) => state === 'ok' || state.startsWith('ok: ')),
      checks: Object.fromEntries(entries),
    };
  };
}
