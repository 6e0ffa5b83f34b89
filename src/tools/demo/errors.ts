/**
 * A demo failure to report as one line (what went wrong and what to do), exit code 1. The CLI
 * turns it into its own error type; nothing in src/ imports the CLI.
 */
export class DemoError extends Error {
  override readonly name = 'DemoError';
}

/** Why the demo stopped before its story was done: a signal, or its deadline. */
export class DemoStopped extends Error {
  override readonly name = 'DemoStopped';
  constructor(
    readonly reason: { kind: 'signal'; signal: NodeJS.Signals } | { kind: 'deadline'; ms: number },
  ) {
    super(
      reason.kind === 'signal' ? `interrupted by ${reason.signal}` : `deadline of ${reason.ms} ms reached`,
    );
  }
}
