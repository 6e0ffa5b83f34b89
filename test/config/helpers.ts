import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type { ConfigProblem } from '../../src/config-kit/problems.ts';

/** A small valid raw config (as parsed from YAML) that tests copy and break in one place. */
export function validRaw(): Record<string, unknown> {
  return {
    workspaces: [
      {
        id: 'acme',
        baseUrl: 'https://api.example.com',
        apiKey: 'sk-test-123',
        books: [{ asin: 'B0CJ4XQ2ZK', marketplaces: ['US', 'UK'] }],
        campaigns: [{ id: 'camp-1' }],
      },
    ],
    channels: [
      { id: 'log', type: 'log' },
      { id: 'team-slack', type: 'slack', webhookUrl: 'https://hooks.slack.com/services/T0/B0/secret-token' },
      {
        id: 'team-mail',
        type: 'email',
        smtpUrl: 'smtp://user:smtp-password@127.0.0.1:2525',
        from: 'alerts@example.com',
        to: ['a@example.com'],
      },
    ],
  };
}

/** A temporary directory for the test file, removed after its tests. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'shelfwatch-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function writeFile(dir: string, name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** The one problem at `path`; fails with the list when there is none or more than one. */
export function problemAt(problems: readonly ConfigProblem[], path: string): ConfigProblem {
  const found = problems.filter((problem) => problem.path === path);
  if (found.length !== 1) {
    throw new Error(
      `expected one problem at ${path}, got:\n${problems.map((p) => `${p.path}: ${p.message}`).join('\n')}`,
    );
  }
  return found[0] as ConfigProblem;
}
