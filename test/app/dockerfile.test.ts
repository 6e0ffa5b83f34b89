/**
 * The Dockerfile, read as instructions: hadolint is neither a Debian package nor an npm package
 * that ships its binary (the npm `hadolint` downloads it at install), so the rules that matter here
 * are checked directly, and hadolint itself runs too when it is on the PATH.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startOpsServer } from '../../src/app/http-server.ts';
import { Metrics } from '../../src/ops/metrics.ts';
import { hasTool } from '../helpers/tools.ts';

interface Instruction {
  keyword: string;
  args: string;
  stage: number;
}

/** Instructions with continuation lines joined and comments dropped; `stage` counts FROMs from 0. */
function instructions(text: string): Instruction[] {
  const joined = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ');
  let stage = -1;
  const list: Instruction[] = [];
  for (const line of joined.split('\n')) {
    const match = /^\s*([A-Z]+)\s+(.*)$/.exec(line);
    if (match === null) continue;
    const keyword = match[1] ?? '';
    if (keyword === 'FROM') stage += 1;
    list.push({ keyword, args: (match[2] ?? '').trim(), stage });
  }
  return list;
}

const text = readFileSync('Dockerfile', 'utf8');
const all = instructions(text);
const finalStage = Math.max(...all.map((i) => i.stage));
const final = all.filter((i) => i.stage === finalStage);
const nodeImage = /^ARG NODE_IMAGE=(\S+)$/m.exec(text)?.[1] ?? '';

describe('the Dockerfile', () => {
  it('builds on a supported Node LTS, a pinned slim tag', () => {
    for (const from of all.filter((i) => i.keyword === 'FROM'))
      expect(from.args).toMatch(/^\$\{NODE_IMAGE\}/);
    const major = Number(/^node:(\d+)-[a-z]+-slim$/.exec(nodeImage)?.[1]);
    // Even majors are the LTS lines; 20 reached end of life on 2026-04-30, 22 ends 2027-04-30.
    expect(major % 2).toBe(0);
    expect(major).toBeGreaterThanOrEqual(22);
    // Source installs keep working on the oldest Node the package still accepts.
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe('>=20.19.0');
  });

  it('runs on production dependencies only, from a stage that installed no dev dependencies', () => {
    const deps = all.find((i) => i.keyword === 'FROM' && /\bAS deps$/i.test(i.args))?.stage;
    expect(all.filter((i) => i.stage === deps && i.keyword === 'RUN').map((i) => i.args)).toEqual([
      expect.stringContaining('npm ci --omit=dev'),
    ]);
    const copies = final.filter((i) => i.keyword === 'COPY').map((i) => i.args);
    expect(copies).toContain('--from=deps /app/node_modules ./node_modules');
    expect(final.some((i) => i.keyword === 'RUN' && i.args.includes('npm'))).toBe(false);
  });

  it('runs as the non-root node user, with /app writable by it', () => {
    const users = final.filter((i) => i.keyword === 'USER');
    expect(users.at(-1)?.args).toBe('node');
    const userAt = final.findIndex((i) => i.keyword === 'USER');
    const entryAt = final.findIndex((i) => i.keyword === 'ENTRYPOINT');
    expect(userAt).toBeLessThan(entryAt);
    expect(final.some((i) => i.keyword === 'RUN' && /chown node:node \/app\b/.test(i.args))).toBe(true);
  });

  it('checks its health on /healthz with node (slim images have no curl)', () => {
    const health = final.find((i) => i.keyword === 'HEALTHCHECK')?.args ?? '';
    expect(health).toMatch(/CMD \["node", "-e", ".*\/healthz/);
    expect(health).not.toMatch(/curl|wget/);
  });

  it('follows the hadolint rules that apply to it', () => {
    for (const { keyword, args } of all) {
      // DL3025: JSON form for CMD and ENTRYPOINT, so signals reach node (graceful shutdown).
      if (keyword === 'CMD' || keyword === 'ENTRYPOINT') expect(args, keyword).toMatch(/^\[.*\]$/);
      // DL3000: absolute WORKDIR. DL3020: COPY, not ADD. DL3007: no :latest.
      if (keyword === 'WORKDIR') expect(args).toMatch(/^\//);
      expect(keyword).not.toBe('ADD');
      expect(args).not.toMatch(/:latest\b/);
      // DL3004 / DL3002: no sudo, never back to root at the end.
      expect(args).not.toMatch(/\bsudo\b/);
    }
    // DL4003 / DL4004: one CMD and one ENTRYPOINT in the final stage.
    expect(final.filter((i) => i.keyword === 'ENTRYPOINT')).toHaveLength(1);
    expect(final.filter((i) => i.keyword === 'CMD')).toHaveLength(1);
  });

  it('its health command passes against the ops server and fails when nothing answers', async () => {
    const health = final.find((i) => i.keyword === 'HEALTHCHECK')?.args ?? '';
    const [command, ...args] = JSON.parse(health.slice(health.indexOf('CMD ') + 4)) as string[];
    expect(command).toBe('node');
    const server = await startOpsServer({
      host: '127.0.0.1',
      port: 0,
      metrics: new Metrics({ defaultMetrics: false }),
      readiness: async () => ({ ok: true, checks: {} }),
    });
    // Asynchronous: the server answers from this process's event loop.
    const check = (url: string) =>
      new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, args, {
          env: { PATH: process.env.PATH ?? '', SHELFWATCH_HEALTHCHECK_URL: url },
          stdio: 'ignore',
        });
        child.once('exit', (code) => resolve(code));
      });
    try {
      expect(await check(`${server.url}/healthz`)).toBe(0);
      expect(await check(`${server.url}/nothing-here`)).toBe(1);
    } finally {
      await server.close();
    }
    expect(await check(`${server.url}/healthz`)).toBe(1);
  });

  it.skipIf(!hasTool('hadolint'))('passes hadolint', () => {
    const linted = spawnSync('hadolint', ['Dockerfile'], { encoding: 'utf8' });
    expect(linted.stdout + linted.stderr).toBe('');
    expect(linted.status).toBe(0);
  });
});
