import { createRequire } from 'node:module';
import { type Logger, type LoggerOptions, pino } from 'pino';
import { REDACTED, redact } from '../util/redact.ts';

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
  /** Colour in pretty output; the CLI decides it from NO_COLOR / FORCE_COLOR and the terminal. */
  colorize?: boolean;
  /** Where JSON lines go; tests pass a stream to read them back. */
  destination?: NodeJS.WritableStream;
  /**
   * The configured secrets (`secretsIn(config)`): taken out of every line by value, whatever field
   * carries them (an error's code, a header echoed in a message), before the line is written.
   */
  secrets?: readonly string[];
}

export function createLogger(settings: LoggerSettings = {}): Logger {
  const options: LoggerOptions = {
    level: settings.level ?? 'info',
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    base: { app: 'shelfwatch' },
    // By value only: a line is JSON, and masking by shape could break it.
    hooks: { streamWrite: (line) => redact(line, settings.secrets ?? [], { shapes: false }) },
  };
  const colorize = settings.colorize ?? false;
  const pretty = settings.pretty === true ? loadPinoPretty() : undefined;
  if (pretty !== undefined) {
    if (settings.destination === undefined) {
      return pino({ ...options, transport: { target: 'pino-pretty', options: { colorize } } });
    }
    return pino(options, pretty({ colorize, destination: settings.destination, sync: true }));
  }
  return settings.destination === undefined ? pino(options) : pino(options, settings.destination);
}

/**
 * pino-pretty is a dev dependency: a production install (the Docker image) has none, and a terminal
 * there (`docker run -it`) gets JSON lines instead of a crash at start. Loaded on demand for that reason.
 */
function loadPinoPretty(): typeof import('pino-pretty').PinoPretty | undefined {
  try {
    return (createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty')).PinoPretty;
  } catch {
    return undefined;
  }
}

/** A logger that drops everything: for tests and library use without output. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
