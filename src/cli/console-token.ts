import { generateToken } from '../console/auth.ts';

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
