/**
 * What a command may touch of its process: its output streams, its environment, its working
 * folder and its stdin. `main.ts` passes the process's own; tests pass buffers and a clean
 * environment and call the program in process (`runProgram` in program.ts). No command reads
 * `process.env` or writes `process.stdout` itself.
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
