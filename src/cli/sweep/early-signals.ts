// The graceful path for a signal that arrives before a command has taken signals over
// (docs/differences.md X45). Without a listener, SIGINT or SIGTERM in harness2's first moments
// (loading its modules, parsing the command line, opening the store) ended the process by the
// default action: exit 143 or 130 from the shell's view, with no word of what happened. Until
// released, the hold below turns such a signal into one line and the documented exit code 130.
// A command that handles signals itself (the sweep session, the worker) releases the hold when its
// own listener is in place; every other command is released when it starts to run, and keeps the
// behaviour it had before.

import { EXIT } from "../exit-codes.ts";

const SIGNALS = ["SIGINT", "SIGTERM"] as const;

let held = false;

function onEarly(): void {
  process.stderr.write(
    "harness2: interrupted before any work started: nothing was run or lost; the same command starts again\n",
  );
  process.exit(EXIT.interrupted);
}

/** Holds SIGINT and SIGTERM until `releaseEarlySignals`; idempotent. */
export function holdEarlySignals(): void {
  if (held) return;
  held = true;
  for (const sig of SIGNALS) process.on(sig, onEarly);
}

/** Lets go of the hold (a command's own listener, or the default, applies from now); idempotent. */
export function releaseEarlySignals(): void {
  if (!held) return;
  held = false;
  for (const sig of SIGNALS) process.off(sig, onEarly);
}
