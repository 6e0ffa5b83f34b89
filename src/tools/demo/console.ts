/**
 * The demo's console: served on 127.0.0.1:8466 (any free port when that one is taken) with a token
 * made for this run, so `npm run demo` in a terminal ends with something to click.
 */
import type { Runtime } from '../../app/runtime.ts';
import { generateToken } from '../../console/access/secrets.ts';
import { startConsole } from '../../console/start.ts';
import type { Shutdown } from '../../ops/shutdown.ts';

const DEMO_CONSOLE_PORT = 8466;

export async function startDemoConsole(
  runtime: Runtime,
  shutdown: Shutdown,
): Promise<{ url: string; token: string }> {
  const token = generateToken();
  const start = (port: number) => startConsole({ runtime, token, host: '127.0.0.1', port });
  const running = await start(DEMO_CONSOLE_PORT).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    return start(0);
  });
  shutdown.add('console', () => running.close());
  return { url: running.url, token };
}

/** Resolves when the stop switch fires (Ctrl-C). */
export function untilStopped(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
