// The npm registry reachable from the machines this project is built on does not serve the other
// platforms' builds of packages like @biomejs/cli-* and @msgpackr-extract/*, so `npm install`
// leaves them out of package-lock.json, and `npm ci` then refuses the lock as out of sync. This
// adds an entry for each missing optional platform package, with its os/cpu, so `npm ci` skips it
// on other platforms exactly as it would with a complete lock. Run after `npm install`:
//   npm run lock:platforms
import { readFileSync, writeFileSync } from 'node:fs';

const file = process.argv[2] ?? 'package-lock.json';
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;
const PLATFORM = /-(android|darwin|linux|win32|freebsd)-(arm64|x64|arm|ia32)(?:-(musl|gnu|msvc))?$/;
let added = 0;
for (const node of Object.values(packages)) {
  for (const [name, version] of Object.entries(node.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (packages[key] !== undefined) continue;
    const entry = { version, ...(node.dev === true ? { dev: true } : {}), optional: true };
    const match = PLATFORM.exec(name);
    if (match !== null) {
      entry.os = [match[1]];
      entry.cpu = [match[2]];
      if (match[3] === 'musl') entry.libc = ['musl'];
      if (match[3] === 'gnu') entry.libc = ['glibc'];
    }
    packages[key] = entry;
    added += 1;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`${file}: added ${added} optional platform package entr${added === 1 ? 'y' : 'ies'}`);
