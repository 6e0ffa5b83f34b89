/** A JSON logger whose lines a test reads back. */
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/ops/logger.ts';

export interface LogLine {
  level: number;
  msg: string;
}

export function capturingLogger(level: 'debug' | 'info' = 'info'): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as LogLine);
      done();
    },
  });
  return { logger: createLogger({ destination, level }), lines };
}
