import { processIo } from './io.ts';
import { runProgram } from './program.ts';

// A failed command exits at once with its code (a half-open connection must not hold the process);
// a successful one ends when its work does (`run` and `sim` keep serving until a signal).
const code = await runProgram(process.argv.slice(2), processIo());
if (code !== 0) process.exit(code);
