import { describe, expect, it } from 'vitest';
import { parsePlan, SimConfigError, startSimulator } from '../../src/sim/index.ts';
import { ADMIN, TestSim } from './helpers.ts';

describe('startSimulator options', () => {
  it.each([
    [{ books: 0 }, 'books'],
    [{ campaigns: -1 }, 'campaigns'],
    [{ speed: -1 }, 'speed'],
    [{ seed: 1.5 }, 'seed'],
    [{ startAt: 'not a date' }, 'startAt'],
    [{ faults: { errorRate: 2 } }, 'errorRate'],
    [{ keys: [{ key: 'has space', workspace: 'w', plan: parsePlan('studio') }] }, 'key'],
  ])('refuses %j with a SimConfigError', async (options, mention) => {
    const started = startSimulator(options);
    await expect(started).rejects.toBeInstanceOf(SimConfigError);
    await expect(started).rejects.toThrow(mention);
  });

  it('parses plans and names the accepted forms otherwise', () => {
    expect(parsePlan('studio')).toEqual({ name: 'studio', perMinute: 60, perMonth: 100_000 });
    expect(parsePlan('publisher')).toEqual({ name: 'publisher', perMinute: 300, perMonth: 1_000_000 });
    expect(parsePlan('custom:1000:30')).toEqual({ name: 'custom', perMinute: 1000, perMonth: 30 });
    for (const bad of ['Studio', 'custom:0:10', 'custom:10', 'custom:a:b', 'enterprise', '']) {
      expect(() => parsePlan(bad)).toThrow(SimConfigError);
      expect(() => parsePlan(bad)).toThrow('custom:PER_MINUTE:PER_MONTH');
    }
  });
});

describe('clock and lifecycle', () => {
  it('runs the sim clock at the given speed from startAt', async () => {
    const sim = await startSimulator({ startAt: '2026-11-01T00:00:00Z', speed: 3600 });
    try {
      const realStart = performance.now();
      const simStart = sim.clock.now();
      expect(simStart).toBeGreaterThanOrEqual(Date.parse('2026-11-01T00:00:00Z'));
      while (performance.now() - realStart < 50) await new Promise((resolve) => setImmediate(resolve));
      const realElapsed = performance.now() - realStart;
      const simElapsed = sim.clock.now() - simStart;
      expect(simElapsed).toBeGreaterThanOrEqual(realElapsed * 3600 * 0.9);
      expect(simElapsed).toBeLessThanOrEqual((realElapsed + 50) * 3600);
    } finally {
      await sim.close();
    }
  });

  it('close ends open connections and pending slow answers at once', async () => {
    const t = await TestSim.startForTest();
    await t.control('POST', '/_sim/faults', { kind: 'slow', delayMs: 60_000 });
    const pending = fetch(`${t.sim.url}/v1/sales`, { headers: { Authorization: 'Bearer sk_demo_studio' } });
    // Wait until the simulator has the request (it is logged only when answered, so poll the queue).
    const deadline = Date.now() + 5000;
    while ((await t.control<{ queued: unknown[] }>('GET', '/_sim/faults')).queued.length > 0) {
      if (Date.now() > deadline) throw new Error('the slow request never arrived');
    }
    const started = performance.now();
    await t.sim.close();
    expect(performance.now() - started).toBeLessThan(2000);
    await expect(pending).rejects.toThrow();
  });

  it('uses a random admin token unless one is given', async () => {
    const sim = await startSimulator();
    try {
      expect(sim.adminToken).toMatch(/^[0-9a-f]{32}$/);
      expect(sim.adminToken).not.toBe(ADMIN);
      expect(sim.url).toBe(`http://127.0.0.1:${sim.port}`);
    } finally {
      await sim.close();
    }
  });
});
