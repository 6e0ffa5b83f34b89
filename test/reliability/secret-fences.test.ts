/**
 * The fences around secrets that need no scenario: Slack webhooks only on hooks.slack.com over
 * https unless a channel says otherwise, the simulator's control endpoint shut to anyone without
 * its exact token, and the health and metrics server on loopback by default.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpsServer } from '../../src/app/http-server.ts';
import { parsePlan, type RunningSimulator, startSimulator } from '../../src/sim/index.ts';
import { parseOrThrow } from '../poll/engine-harness.ts';

const KEY = 'sk_fences_0123456789';
let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({
    port: 0,
    books: 1,
    keys: [{ key: KEY, workspace: 'ws-fences', plan: parsePlan('studio') }],
  });
});

afterAll(async () => {
  await sim?.close();
});

describe('fences around secrets', () => {
  it('a Slack webhook must be https on hooks.slack.com unless allowAnyHost says otherwise', () => {
    const base = {
      workspaces: [{ id: 'acme', baseUrl: 'https://api.example.com', apiKey: 'k', campaigns: [{ id: 'c' }] }],
    };
    const problems = (webhookUrl: string, allowAnyHost?: boolean) => {
      const channel = {
        id: 's',
        type: 'slack',
        webhookUrl,
        ...(allowAnyHost === undefined ? {} : { allowAnyHost }),
      };
      try {
        parseOrThrow({ ...base, channels: [channel] });
        return 'accepted';
      } catch (error) {
        return (error as Error).message.includes('channels[0].webhookUrl')
          ? 'refused'
          : (error as Error).message;
      }
    };
    expect(problems('https://hooks.slack.com/services/T0/B0/x')).toBe('accepted');
    expect(problems('https://hooks.slack.com.evil.example/services/T0/B0/x')).toBe('refused');
    expect(problems('https://evil.example/hooks.slack.com/services/T0/B0/x')).toBe('refused');
    expect(problems('https://user@hooks.slack.com@evil.example/services/x')).toBe('refused');
    expect(problems('http://hooks.slack.com/services/T0/B0/x')).toBe('refused');
    expect(problems('http://127.0.0.1:9/services/x')).toBe('refused');
    // allowAnyHost opens other hosts, and plain http only on this machine.
    expect(problems('https://proxy.example/services/x', true)).toBe('accepted');
    expect(problems('http://127.0.0.1:9/services/x', true)).toBe('accepted');
    expect(problems('http://proxy.example/services/x', true)).toBe('refused');
  });

  it('the simulator’s control endpoint refuses every request without its exact token', async () => {
    const attempts: [string, string, Record<string, string>][] = [
      ['GET', '/_sim/world', {}],
      ['GET', '/_sim/requests', { 'x-sim-admin-token': '' }],
      ['POST', '/_sim/keys', { 'x-sim-admin-token': sim.adminToken.slice(0, -1) }],
      ['POST', '/_sim/keys', { 'x-sim-admin-token': `${sim.adminToken}x` }],
      ['POST', '/_sim/keys', { 'x-sim-admin-token': sim.adminToken.toUpperCase() }],
      ['POST', '/_sim/keys', { authorization: `Bearer ${KEY}` }],
      ['DELETE', '/_sim/faults', { 'x-sim-admin-token': 'undefined' }],
    ];
    for (const [method, path, headers] of attempts) {
      const res = await fetch(`${sim.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        ...(method === 'POST'
          ? { body: JSON.stringify({ key: 'sk_intruder', workspace: 'x', plan: 'studio' }) }
          : {}),
      });
      const text = await res.text();
      expect([method, path, res.status]).toEqual([method, path, 401]);
      expect(text).not.toContain(sim.adminToken);
    }
    // The refused POST added no key: the intruder's key is still unknown to the API.
    const probe = await fetch(`${sim.url}/v1/arc/reviews`, {
      headers: { authorization: 'Bearer sk_intruder' },
    });
    expect(probe.status).toBe(401);
  });

  it('the health and metrics server binds to 127.0.0.1 by default', async () => {
    const config = parseOrThrow({
      workspaces: [{ id: 'acme', baseUrl: 'https://api.example.com', apiKey: 'k', campaigns: [{ id: 'c' }] }],
    });
    expect(config.server.host).toBe('127.0.0.1');
    const server = await startOpsServer({
      host: config.server.host,
      port: 0,
      metrics: { text: async () => '', contentType: 'text/plain' },
      readiness: async () => ({ ok: true, checks: {} }),
    });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
