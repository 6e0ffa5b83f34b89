#!/usr/bin/env node
// Runs the TypeScript sources through tsx's loader, so `npx shelfwatch` works straight after `npm ci`
// with no build step to forget.
//
// `shelfwatch --version` alone is answered here from package.json, before tsx and commander load
// (starting them costs several times a bare node). The program stays the authority: it prints the
// same line (src/cli/version.ts reads the same file), and test/cli/program.test.ts checks that both agree.
import { readFileSync } from 'node:fs';

// A reader that stops early (`shelfwatch --help | head`) closes the pipe: what is left to print has
// nowhere to go, which is no failure of the command. Exit quietly instead of dying on an unhandled
// 'error' event with a stack trace; any other error of stdout is still thrown.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
