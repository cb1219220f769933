// The process exit codes of every harness2 command, in one place so the README, the headless
// printers and the TUI agree. Never reuse a number for a different meaning.

import type { ErrorKind } from "../core/lib/errors.ts";

export const EXIT = {
  /** The command did what was asked (every task ok, every problem-free check). */
  ok: 0,
  /** The command ran but the work failed: a task failed, a check found problems, a refusal. */
  failed: 1,
  /** The command line itself is wrong: unknown command or flag, bad value. Nothing was run. */
  usage: 2,
  /** The spending cap (--max-usd) stopped the sweep: finished work is kept; a higher cap resumes. */
  capped: 3,
  /**
   * Something this machine or its setup lacks stopped the command before any work: a program that
   * cannot start, Python, the sandbox, a store's place or its server, benchmark data not set up.
   * Nothing was spent; install or start it (`harness2 check` says what) and run the same command.
   */
  environment: 4,
  /** A bug in harness2 (an internal check failed): finished work is kept; report the message. */
  bug: 70,
  /** Interrupted by the user (q / Ctrl-C / SIGTERM); finished work is kept and resumes. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit code of each kind of error (core/lib/errors.ts ErrorKind). */
export const EXIT_FOR_KIND: Readonly<Record<ErrorKind, ExitCode>> = {
  usage: EXIT.usage,
  refusal: EXIT.failed,
  environment: EXIT.environment,
  bug: EXIT.bug,
  interrupted: EXIT.interrupted,
  capped: EXIT.capped,
};
