import type { Runtime } from '../app/runtime.ts';
import { isLoopback, MIN_REMOTE_TOKEN } from '../config/console.ts';
import { generateToken } from '../console/access/secrets.ts';
import type { RunningConsole } from '../console/start.ts';
import type { Shutdown } from '../ops/shutdown.ts';
import { usageError } from './errors.ts';

/** Where the console's token comes from when the config has none: the environment, else a new one. */
export function consoleToken(
  configured: string | undefined,
  env: NodeJS.ProcessEnv,
): { token: string; generated: boolean } {
  const fromEnv = env.SHELFWATCH_CONSOLE_TOKEN?.trim();
  if (configured !== undefined) return { token: configured, generated: false };
  if (fromEnv !== undefined && fromEnv !== '') return { token: fromEnv, generated: false };
  return { token: generateToken(), generated: true };
}

/**
 * Serves the console for `console` and `run` alike: the token from the config, else
 * SHELFWATCH_CONSOLE_TOKEN, else a generated one that the caller prints once with
 * `generatedTokenLine` (stdout, never the logger: log lines are kept and shipped, and this line is
 * the key to the console). A generated token is only for loopback; the config already refuses
 * another host without a token, this is the second fence.
 */
export async function serveConsole(
  runtime: Runtime,
  shutdown: Shutdown,
  options: { host: string; port: number; env: NodeJS.ProcessEnv; mayGenerate?: boolean },
): Promise<RunningConsole & { generatedToken?: string }> {
  const { token, generated } = consoleToken(runtime.config.console.token?.reveal(), options.env);
  if (generated && options.mayGenerate === false) throw new ConsoleTokenMissing();
  if (generated && !isLoopback(options.host)) {
    throw usageError(
      `console.host "${options.host}" is beyond loopback and no token is set: set console.token (e.g. \${SHELFWATCH_CONSOLE_TOKEN})`,
    );
  }
  if (!isLoopback(options.host) && token.length < MIN_REMOTE_TOKEN) {
    throw usageError(
      `console.host "${options.host}" is beyond loopback and the token has ${token.length} characters: use at least ${MIN_REMOTE_TOKEN}`,
    );
  }
  // Loaded only when served: fastify and Bull Board stay out of a plain worker's start.
  const { startConsole } = await import('../console/start.ts');
  const { storeEditor } = await import('../console/config-store-editor.ts');
  const { openRevisionStore } = await import('../revisions/index.ts');
  // The config forms edit the revision store of this deployment (the home shard's prefix).
  const store = openRevisionStore({
    redis: runtime.redis,
    prefix: runtime.prefix,
    env: options.env,
    processRedis: runtime.config.redis,
  });
  const running = await startConsole({
    runtime,
    token,
    host: options.host,
    port: options.port,
    editor: storeEditor(store),
  });
  shutdown.add('console', () => running.close());
  return generated ? { ...running, generatedToken: token } : running;
}

/**
 * `run` without a terminal: its stdout is a log stream (Docker, systemd) that is kept and shipped,
 * so a generated token printed there would be a secret in the logs. It serves no console instead.
 */
export class ConsoleTokenMissing extends Error {
  constructor() {
    super(
      'console not started: no token is set and stdout is not a terminal, where a generated one would be printed; set console.token or SHELFWATCH_CONSOLE_TOKEN',
    );
    this.name = 'ConsoleTokenMissing';
  }
}

/** The one line that hands a generated token over: for stdout only, never the logger. */
export function generatedTokenLine(token: string): string {
  return `console token (generated, valid until this process stops): ${token}\n`;
}
