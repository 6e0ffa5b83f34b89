import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The nearest package.json named shelfwatch above this file: the sources sit two levels below it,
 * the compiled build (`npm run build`, dist/src/cli) three.
 */
function readPackageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const json: unknown = JSON.parse(readFileSync(file, 'utf8'));
      if (typeof json === 'object' && json !== null && 'name' in json && json.name === 'shelfwatch') {
        return 'version' in json && typeof json.version === 'string' ? json.version : '0.0.0';
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return '0.0.0';
    dir = parent;
  }
}

/** The package version, read once; sent in the User-Agent and printed by `--version`. */
export const VERSION: string = readPackageVersion();
