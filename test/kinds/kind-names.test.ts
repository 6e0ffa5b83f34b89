/**
 * A kind's name is spelled in at most three files of the worker's rooms: the model's union
 * (src/model/alert.ts), its family (src/rules/<family>.ts) and, at most, the registry. Every other
 * file reaches a kind through the registry (src/rules/kinds.ts), so adding a kind touches its
 * family, its test and the registry. Examples in CLI help and console pages are outside these rooms.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALERT_KINDS } from '../../src/model/alert.ts';

const ROOT = join(import.meta.dirname, '../..');
/** The worker's rooms (config-kit and channels were split out of config and deliver). */
const ROOMS = ['model', 'config', 'config-kit', 'rules', 'poll', 'deliver', 'channels', 'digest'];
const MAX_FILES = 3;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Which of `files` spell `kind` as a word (code, strings and comments alike). */
function filesSpelling(kind: string, files: ReadonlyMap<string, string>): string[] {
  const word = new RegExp(`(?<![A-Za-z0-9_])${kind}(?![A-Za-z0-9_])`);
  return [...files].filter(([, text]) => word.test(text)).map(([path]) => path);
}

const FILES = new Map(
  ROOMS.flatMap((room) => {
    let paths: string[] = [];
    try {
      paths = sources(join(ROOT, 'src', room));
    } catch {
      // A room another change removed: nothing of it to count.
    }
    return paths.map((path) => [relative(ROOT, path), readFileSync(path, 'utf8')] as const);
  }),
);

describe('each alert kind is spelled in its family, the registry and the model only', () => {
  it('scans the rooms (the model spells every kind)', () => {
    expect(FILES.size).toBeGreaterThan(50);
    for (const kind of ALERT_KINDS) expect(filesSpelling(kind, FILES)).toContain('src/model/alert.ts');
  });

  it.each(ALERT_KINDS)(`%s: at most ${MAX_FILES} files`, (kind) => {
    const files = filesSpelling(kind, FILES);
    expect(
      files.length,
      `${kind} is spelled in ${files.length} files: ${files.join(', ')}; reach it through src/rules/kinds.ts`,
    ).toBeLessThanOrEqual(MAX_FILES);
  });

  it('catches a fourth file that spells a kind', () => {
    const planted = new Map([
      ['src/model/alert.ts', "'review_new',"],
      ['src/rules/reviews.ts', "kind: 'review_new'"],
      ['src/rules/kinds.ts', '// review_new'],
      ['src/deliver/render.ts', "if (alert.kind === 'review_new')"],
      ['src/deliver/other.ts', "'review_newer'"],
    ]);
    expect(filesSpelling('review_new', planted)).toHaveLength(MAX_FILES + 1);
  });
});
