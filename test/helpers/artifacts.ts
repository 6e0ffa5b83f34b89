/**
 * Where runs put what they make for the docs: `.artifacts/` at the repository root, ignored by git.
 * No test, chaos run or benchmark writes a tracked file; a separate command copies these into
 * `docs/` (`npm run screenshots` for `docs/img/`, `npm run docs:reliability` for the chaos figures).
 */
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');
export const ARTIFACTS_DIR = join(REPO_ROOT, '.artifacts');

/** `.artifacts/<parts…>`, its folder created. */
export function artifactPath(...parts: string[]): string {
  const path = join(ARTIFACTS_DIR, ...parts);
  mkdirSync(dirname(path), { recursive: true });
  return path;
}
