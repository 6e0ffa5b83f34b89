/**
 * What a command may touch of its process: its output streams, its environment, its working
 * folder, its stdin and the signals that stop it. `main.ts` passes the process's own; tests pass
 * buffers, a clean environment and a stop of their own, and call the program in process
 * (`runProgram` in program.ts). No command reads `process.env` or writes `process.stdout` itself.
 */
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';

export interface CliOutput {
  write(text: string): unknown;
  /** A terminal: colour, pretty logs, a generated console token printed. */
  readonly isTTY?: boolean;
  readonly columns?: number;
}

export interface CliIo {
  readonly stdout: CliOutput;
  readonly stderr: CliOutput;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where relative paths start (`./shelfwatch.yaml`, `--out`). */
  readonly cwd: string;
  /** stdin is a terminal: nothing was piped in. */
  readonly stdinIsTTY: boolean;
  /** All of stdin, for a `-` argument (read once, to its end). */
  readStdin(): string;
  /**
   * Resolves with the signal's name when the command is asked to stop (SIGINT, SIGTERM): a
   * long-running command (`sim`) waits on it. Listening starts at the call. Tests stop it in process.
   */
  untilStopped(): Promise<string>;
}

/** The real process: what `shelfwatch` in a shell gets. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    stdinIsTTY: process.stdin.isTTY === true,
    readStdin: () => readFileSync(0, 'utf8'),
    untilStopped: () =>
      new Promise((resolve) => {
        const stop = (signal: string) => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve(signal);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      }),
  };
}

/** An output as the stream a logger writes to: the process's own as it is, a test's buffer wrapped. */
export function outputStream(out: CliOutput): NodeJS.WritableStream {
  if (out instanceof Writable) return out;
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      out.write(String(chunk));
      done();
    },
  });
}
