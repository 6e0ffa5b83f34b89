#!/usr/bin/env node
// Runs the TypeScript sources through tsx's loader, so `npx shelfwatch` works straight after `npm ci`
// with no build step to forget.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
