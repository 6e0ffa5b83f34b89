/**
 * `sim --replay DIR`: the recorded answers of a folder served as they are. `startRecordedReplay` is
 * the whole start (read and check the folder, listen), shared by the command and the tests that pin
 * a recorded dialect, so both serve a folder the same way.
 */

import { type ReplayAnswer, type RunningReplay, startReplay } from '../sim/replay.ts';
import { RecordingError, readRecording } from '../tools/probe/index.ts';
import { CliError, usageError } from './errors.ts';
import type { CliOutput } from './io.ts';

export interface RecordedReplay {
  replay: RunningReplay;
  answers: ReplayAnswer[];
}

/** Reads the folder (a malformed file is a usage error naming it) and starts serving it. */
export async function startRecordedReplay(
  dir: string,
  options: { host: string; port: number },
): Promise<RecordedReplay> {
  let answers: ReplayAnswer[];
  try {
    answers = readRecording(dir);
  } catch (error) {
    if (error instanceof RecordingError) throw usageError(`--replay: ${error.message}`);
    throw error;
  }
  const replay = await startReplay(answers, options).catch((error: unknown) => {
    throw new CliError(
      `the replay could not start: ${error instanceof Error ? error.message : String(error)}`,
    );
  });
  return { replay, answers };
}

/** Serves the folder until `stopped` resolves (the command's SIGINT/SIGTERM), saying what it serves. */
export async function runRecordedReplay(
  dir: string,
  options: { host: string; port: number },
  stopped: () => Promise<string>,
  stdout: CliOutput,
): Promise<void> {
  const { replay, answers } = await startRecordedReplay(dir, options);
  const out = (line: string) => stdout.write(`${line}\n`);
  out(`shelfwatch replay listening on ${replay.url}: ${answers.length} recorded answers from ${dir}`);
  for (const a of answers) out(`  ${a.method} ${a.path} -> ${a.status}`);
  out('Any key is accepted. Ctrl+C stops it.');
  const signal = await stopped();
  await replay.close();
  out(`replay stopped (${signal})`);
}
