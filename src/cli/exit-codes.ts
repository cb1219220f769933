// The process exit codes of every harness2 command, in one place so the README, the headless
// printers and the TUI agree. Never reuse a number for a different meaning.

export const EXIT = {
  /** The command did what was asked (every task ok, every problem-free check). */
  ok: 0,
  /** The command ran but the work failed: a task failed, a check found problems, a refusal. */
  failed: 1,
  /** The command line itself is wrong: unknown command or flag, bad value. Nothing was run. */
  usage: 2,
  /** The spending cap (--max-usd) stopped the sweep: finished work is kept; a higher cap resumes. */
  capped: 3,
  /** Interrupted by the user (q / Ctrl-C / SIGTERM); finished work is kept and resumes. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
