import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type OpsServer,
  OpsServerListenError,
  type Readiness,
  readinessChecks,
  startOpsServer,
} from '../../src/app/http-server.ts';
import { Metrics } from '../../src/ops/metrics.ts';
import { family } from '../ops/exposition.ts';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A plain node:http request, so nothing between the test and the server pools or retries. */
function call(url: string, method = 'GET', host?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers = host === undefined ? {} : { host };
    const req = request(url, { method, agent: false, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const servers: OpsServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(readiness: () => Promise<Readiness>, metrics = new Metrics({ defaultMetrics: false })) {
  const server = await startOpsServer({ host: '127.0.0.1', port: 0, metrics, readiness });
  servers.push(server);
  return server;
}

const ready = async (): Promise<Readiness> => ({ ok: true, checks: { redis: 'ok', workers: 'ok' } });

describe('ops HTTP server', () => {
  it('binds to the given host on a free port', async () => {
    const server = await start(ready);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.url).not.toBe('http://127.0.0.1:0');
  });

  it('answers 421 to a Host that is a name not in server.allowedHosts (DNS rebinding)', async () => {
    const server = await startOpsServer({
      host: '127.0.0.1',
      port: 0,
      metrics: new Metrics({ defaultMetrics: false }),
      readiness: ready,
      allowedHosts: ['worker-1'],
    });
    servers.push(server);
    const port = new URL(server.url).port;
    for (const path of ['/metrics', '/readyz', '/healthz']) {
      const rebound = await call(`${server.url}${path}`, 'GET', `attacker.example:${port}`);
      expect(rebound.status, path).toBe(421);
      expect(rebound.body).not.toContain('shelfwatch_');
    }
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `worker-1:${port}`,
      `[::1]:${port}`,
      '10.1.2.3',
    ])
      expect((await call(`${server.url}/metrics`, 'GET', host)).status, host).toBe(200);
  });

  it('GET /healthz answers 200 ok while the process is up, whatever readiness says', async () => {
    const server = await start(async () => ({ ok: false, checks: { redis: 'failing' } }));
    const reply = await call(`${server.url}/healthz`);
    expect(reply.status).toBe(200);
    expect(reply.body).toBe('ok\n');
    expect(reply.headers['cache-control']).toBe('no-store');
  });

  it('GET /readyz answers 200 with the checks when all pass', async () => {
    const server = await start(ready);
    const reply = await call(`${server.url}/readyz`);
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(reply.body)).toEqual({ ok: true, checks: { redis: 'ok', workers: 'ok' } });
  });

  it('GET /readyz answers 503 when a check fails, and when the probe itself throws or hangs', async () => {
    const failing = await start(
      readinessChecks({
        redis: () => {
          throw new Error('connect ECONNREFUSED redis://default:hunter2@10.0.0.5:6379');
        },
        workers: () => true,
      }),
    );
    const reply = await call(`${failing.url}/readyz`);
    expect(reply.status).toBe(503);
    const body = JSON.parse(reply.body) as Readiness;
    expect(body.ok).toBe(false);
    expect(body.checks.workers).toBe('ok');
    expect(body.checks.redis).toBe('failing: connect ECONNREFUSED redis://10.0.0.5:6379');
    expect(reply.body).not.toContain('hunter2');

    const throwing = await start(async () => {
      throw new Error('secret-token-123');
    });
    const thrown = await call(`${throwing.url}/readyz`);
    expect(thrown.status).toBe(503);
    expect(thrown.body).not.toContain('secret-token-123');

    const hanging = await startOpsServer({
      host: '127.0.0.1',
      port: 0,
      metrics: new Metrics({ defaultMetrics: false }),
      readiness: () => new Promise(() => {}),
      readinessTimeoutMs: 100,
    });
    servers.push(hanging);
    expect((await call(`${hanging.url}/readyz`)).status).toBe(503);
  });

  it('readinessChecks: a check slower than its timeout fails', async () => {
    const probe = readinessChecks({ redis: () => new Promise(() => {}), workers: async () => 1 }, 50);
    expect(await probe()).toEqual({
      ok: false,
      checks: { redis: 'failing: redis: no answer within 50 ms', workers: 'ok' },
    });
  });

  it('GET /metrics answers the Prometheus text of the given metrics', async () => {
    const metrics = new Metrics({ defaultMetrics: false, sources: { workersRunning: () => 2 } });
    metrics.poll('ws1', 'book', 'ok');
    const server = await start(ready, metrics);
    const reply = await call(`${server.url}/metrics?name[]=x`);
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(family(reply.body, 'shelfwatch_polls_total')).toEqual([
      { labels: { workspace: 'ws1', kind: 'book', outcome: 'ok' }, value: 1 },
    ]);
    expect(family(reply.body, 'shelfwatch_workers_running')).toEqual([{ labels: {}, value: 2 }]);
  });

  it('answers 404 to any other path without echoing it, and 405 to other methods', async () => {
    const server = await start(ready);
    for (const path of ['/', '/metricsx', '/healthz/', '/%3Cscript%3E', '/constructor', '/__proto__']) {
      const reply = await call(`${server.url}${path}`);
      expect(reply.status, path).toBe(404);
      expect(reply.body).toBe('not found\n');
    }
    const post = await call(`${server.url}/metrics`, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    const head = await call(`${server.url}/healthz`, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
  });

  it('fails to start with a typed error naming the address when the port is taken', async () => {
    const first = await start(ready);
    const port = Number(new URL(first.url).port);
    const attempt = startOpsServer({
      host: '127.0.0.1',
      port,
      metrics: new Metrics({ defaultMetrics: false }),
      readiness: ready,
    });
    await expect(attempt).rejects.toBeInstanceOf(OpsServerListenError);
    await expect(attempt).rejects.toThrow(`cannot listen on 127.0.0.1:${port} (EADDRINUSE)`);
  });

  it('close() does not wait for a scrape in flight, and is safe to call twice', async () => {
    let scraping = false;
    const stuck = {
      contentType: 'text/plain',
      text: () => {
        scraping = true;
        return new Promise<string>(() => {});
      },
    };
    const server = await startOpsServer({ host: '127.0.0.1', port: 0, metrics: stuck, readiness: ready });
    const inFlight = call(`${server.url}/metrics`);
    const outcome = inFlight.then(
      () => 'answered',
      (error: Error) => error.message,
    );
    while (!scraping) await new Promise((resolve) => setImmediate(resolve));
    await server.close();
    await server.close();
    expect(await outcome).toBe('socket hang up');
    await expect(call(`${server.url}/healthz`)).rejects.toThrow(/ECONNREFUSED/);
  });
});
