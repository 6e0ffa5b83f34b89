/**
 * The Docker setup as a newcomer meets it: `docker compose up` from a fresh clone (no .env), the
 * sample config it runs, and the rules the compose file must keep. No Docker engine runs on these
 * machines: `docker-compose config` (Debian's docker-compose, installed by .ci/run) checks the file
 * against the compose-spec schema when present; the rest is read here.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/load.ts';
import { startSimulator } from '../../src/sim/index.ts';
import { hasTool } from '../helpers/tools.ts';

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  env_file?: unknown;
  healthcheck?: { test?: string[] };
  depends_on?: Record<string, { condition?: string }>;
  restart?: string;
  stop_grace_period?: string;
  pull_policy?: string;
}

const compose = parse(readFileSync('docker-compose.yml', 'utf8')) as {
  services: Record<string, ComposeService>;
};
const services = compose.services;
const worker = services.worker as ComposeService;

/** `.env` lines → a map, as docker compose reads them (no quotes, no expansion). */
function readEnvFile(path: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const match = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (match?.[1] !== undefined) env[match[1]] = match[2] ?? '';
  }
  return env;
}

/** The worker's environment as compose gives it with no .env: each `${VAR:-default}` → default. */
function workerDefaults(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(worker.environment ?? {}).map(([name, value]) => [
      name,
      value.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1'),
    ]),
  );
}

/** `75s`, `1m30s` → seconds. */
function seconds(duration: string | undefined): number {
  let total = 0;
  for (const [, n, unit] of (duration ?? '').matchAll(/(\d+)(h|m|s)/g)) {
    total += Number(n) * (unit === 'h' ? 3600 : unit === 'm' ? 60 : 1);
  }
  return total;
}

describe('docker compose from a fresh clone', () => {
  it('needs no .env: the worker gets every value from defaults', () => {
    for (const [name, service] of Object.entries(services)) expect(service.env_file, name).toBeUndefined();
    const result = loadConfig({ path: 'examples/docker.yaml', env: workerDefaults() });
    expect(result.ok ? [] : result.problems).toEqual([]);
    if (!result.ok) return;
    expect(result.config.workspaces[0]?.baseUrl).toBe('http://simulator:4010');
    expect(result.config.channels.map((c) => c.type)).toEqual(['log', 'email']);
    expect(worker.command).toEqual(['run', '--config', 'examples/docker.yaml']);
  });

  it('.env.example overrides exactly the variables the worker reads, all used by the config', () => {
    const example = readEnvFile('.env.example');
    expect(Object.keys(example).sort()).toEqual(Object.keys(worker.environment ?? {}).sort());
    const config = readFileSync('examples/docker.yaml', 'utf8');
    for (const name of Object.keys(example)) expect(config, name).toContain(`\${${name}`);
    const result = loadConfig({ path: 'examples/docker.yaml', env: example });
    expect(result.ok ? [] : result.problems).toEqual([]);
  });

  it("fails closed: plain transport is allowed only beside the simulator's and Mailpit's URLs", () => {
    // No setting of the compose file or .env turns an insecure opt-in on: changing a URL alone
    // can never send the key or the SMTP password in clear to another server.
    const variables = [...Object.keys(worker.environment ?? {}), ...Object.keys(readEnvFile('.env.example'))];
    expect(variables.filter((name) => /INSECURE|_URL$/.test(name) && name !== 'REDIS_URL')).toEqual([]);
    const raw = parse(readFileSync('examples/docker.yaml', 'utf8')) as {
      workspaces: Record<string, unknown>[];
      channels: Record<string, unknown>[];
    };
    const optIns = [...raw.workspaces, ...raw.channels].filter((item) => item.allowInsecure !== undefined);
    expect(optIns.map((item) => [item.baseUrl ?? item.smtpUrl, item.allowInsecure])).toEqual([
      ['http://simulator:4010', true],
      ['smtp://mailpit:1025?ignoreTLS=true', true],
    ]);
    const result = loadConfig({ path: 'examples/docker.yaml', env: workerDefaults() });
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    expect(result.config.workspaces[0]?.allowInsecure).toBe(true);
  });

  it('Redis keeps its data (AOF) and never evicts', () => {
    expect(services.redis?.command?.join(' ')).toContain('--appendonly yes --maxmemory-policy noeviction');
  });

  it('pins every pulled image, builds one image for the simulator and the worker', () => {
    const built = Object.entries(services).filter(([, service]) => service.build !== undefined);
    expect(built.map(([name]) => name)).toEqual(['simulator']);
    expect(worker.image).toBe(services.simulator?.image);
    expect(worker.pull_policy).toBe('never');
    for (const [name, service] of Object.entries(services)) {
      if (service.image === worker.image) continue;
      expect(service.image, name).toMatch(/:[\w.-]+$/);
      expect(service.image, name).not.toMatch(/:latest$/);
    }
  });

  it('restarts every service, and starts the worker once the others are healthy', () => {
    for (const [name, service] of Object.entries(services))
      expect(service.restart, name).toBe('unless-stopped');
    const others = Object.keys(services).filter((name) => name !== 'worker');
    for (const name of others) {
      expect(services[name]?.healthcheck?.test, name).toBeDefined();
      expect(worker.depends_on?.[name]?.condition, name).toBe('service_healthy');
    }
  });

  it("the simulator's healthcheck passes against the compose command's simulator (seed 1)", async () => {
    const [kind, command, ...args] = services.simulator?.healthcheck?.test ?? [];
    expect([kind, command]).toEqual(['CMD', 'node']);
    const seed = services.simulator?.command?.[services.simulator.command.indexOf('--seed') + 1];
    const sim = await startSimulator({ seed: Number(seed) });
    try {
      const local = args.map((arg) => arg.replace('http://127.0.0.1:4010', sim.url));
      // Asynchronous: the simulator answers from this process's event loop.
      const code = await new Promise<number | null>((resolve) => {
        spawn(process.execPath, local, { stdio: 'ignore' }).once('exit', resolve);
      });
      expect(code).toBe(0);
    } finally {
      await sim.close();
    }
  });

  it("gives the worker's shutdown its worst case before Docker kills it", () => {
    // src/ops/shutdown.ts: each release that can wait (poll, digest and delivery workers, the ops
    // server, the runtime) gets 10 s, plus 2 s after an abort.
    const worstCaseS = 5 * (10 + 2);
    expect(seconds(worker.stop_grace_period)).toBeGreaterThan(worstCaseS);
  });

  it.skipIf(!hasTool('docker-compose', ['version']) && process.env.SHELFWATCH_REQUIRE_DOCKER_COMPOSE !== '1')(
    '`docker-compose config` accepts the file with no .env next to it',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'shelfwatch-compose-'));
      try {
        copyFileSync('docker-compose.yml', join(dir, 'docker-compose.yml'));
        const checked = spawnSync('docker-compose', ['config', '-q'], { cwd: dir, encoding: 'utf8' });
        expect(checked.error).toBeUndefined();
        expect(checked.stderr).toBe('');
        expect(checked.status).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

describe('what stays out of the image and out of git', () => {
  const lines = (path: string) =>
    readFileSync(path, 'utf8')
      .split('\n')
      .map((line) => line.trim());

  it('.dockerignore keeps secrets and local state out of the build context', () => {
    const ignored = lines('.dockerignore');
    for (const entry of ['.env', 'shelfwatch.yaml', 'node_modules', '.git', 'outbox', 'digest.html']) {
      expect(ignored, entry).toContain(entry);
    }
  });

  it('.gitignore covers what the README has you create in the checkout', () => {
    const ignored = lines('.gitignore');
    for (const entry of ['.env', 'shelfwatch.yaml', 'outbox/', 'digest.html', '.shelfwatch/']) {
      expect(ignored, entry).toContain(entry);
    }
  });

  it('package.json cannot be published by accident and says what a pack would hold', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { private?: boolean; files?: string[] };
    expect(pkg.private).toBe(true);
    expect(pkg.files).toEqual(expect.arrayContaining(['bin', 'src', 'workers']));
  });
});
