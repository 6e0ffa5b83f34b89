import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';

/** `.env` lines → a map, as docker compose reads them (no quotes, no expansion). */
function readEnvFile(path: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const match = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (match?.[1] !== undefined) env[match[1]] = match[2] ?? '';
  }
  return env;
}

it('the docker compose config validates with the values of .env.example', () => {
  const result = loadConfig({ path: 'examples/docker.yaml', env: readEnvFile('.env.example') });
  expect(result.ok ? [] : result.problems).toEqual([]);
  if (!result.ok) return;
  expect(result.config.workspaces[0]?.baseUrl).toBe('http://simulator:4010');
  expect(result.config.channels.map((c) => c.type)).toEqual(['log', 'email']);
});

it('docker-compose.yml wires the worker to that config and .env', () => {
  const compose = readFileSync('docker-compose.yml', 'utf8');
  expect(compose).toContain('"run", "--config", "examples/docker.yaml"');
  expect(compose).toContain('env_file: .env');
  expect(compose).toContain('"--appendonly", "yes", "--maxmemory-policy", "noeviction"');
});
