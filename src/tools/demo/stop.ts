/**
 * The demo's stop switch: aborted by SIGINT / SIGTERM or by the deadline, whichever comes first.
 * The story watches `signal` and unwinds into the one shutdown path. A second signal exits at
 * once (the user does not want to wait for the cleanup), and should the story not unwind after a
 * signal (a call that ignores it), `force` runs after a grace period.
 */
import { DemoStopped } from './errors.ts';

const FORCE_AFTER_MS = 15_000;

export interface StopSwitch {
  readonly signal: AbortSignal;
  /** Clears the deadline and stops listening for signals. */
  dispose(): void;
  /** Clears the deadline only: the demo then runs until a signal (the console kept up). */
  clearDeadline(): void;
}

export function stopSwitch(deadlineMs: number, force: () => void): StopSwitch {
  const controller = new AbortController();
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(1);
    signalled = true;
    controller.abort(new DemoStopped({ kind: 'signal', signal }));
    setTimeout(force, FORCE_AFTER_MS).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const deadline = setTimeout(
    () => controller.abort(new DemoStopped({ kind: 'deadline', ms: deadlineMs })),
    deadlineMs,
  );
  return {
    signal: controller.signal,
    clearDeadline() {
      clearTimeout(deadline);
    },
    dispose() {
      clearTimeout(deadline);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
