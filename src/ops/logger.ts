import { createRequire } from 'node:module';
import { type Logger, type LoggerOptions, pino } from 'pino';

export type { Logger } from 'pino';

/**
 * Paths that could carry a secret if someone logged a config or request by mistake. Secrets are
 * also wrapped in `Secret` (which prints as "[redacted]"), so this is the second fence, not the first.
 */
const REDACT_PATHS = [
  'apiKey',
  '*.apiKey',
  'webhookUrl',
  '*.webhookUrl',
  'smtpUrl',
  '*.smtpUrl',
  'password',
  '*.password',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'Authorization',
  '*.Authorization',
];

export interface LoggerSettings {
  level?: string;
  /** Pretty, human output (a terminal); JSON otherwise. */
  pretty?: boolean;
  /** Where JSON lines go; tests pass a stream to read them back. */
  destination?: NodeJS.WritableStream;
}

export function createLogger(settings: LoggerSettings = {}): Logger {
  const options: LoggerOptions = {
    level: settings.level ?? 'info',
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { app: 'shelfwatch' },
  };
  if (settings.pretty === true && settings.destination === undefined && prettyInstalled()) {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { colorize: true } } });
  }
  return settings.destination === undefined ? pino(options) : pino(options, settings.destination);
}

/**
 * pino-pretty is a dev dependency: a production install (the Docker image) has none, and a terminal
 * there (`docker run -it`) gets JSON lines instead of a crash at start.
 */
function prettyInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve('pino-pretty');
    return true;
  } catch {
    return false;
  }
}

/** A logger that drops everything: for tests and library use without output. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
