// The check command's report: one line per check as it completes (status, subject, text and its
// fix), with the problems counted for the exit code.

import { Harness2Error } from "../../core/lib/errors.ts";
import { squish } from "../../core/lib/format.ts";
import type { CliIO } from "../command.ts";

/** `warn`: works, but not as the author likely means (not a problem for the exit code). */
export type Status = "ok" | "FAIL" | "warn" | "live" | "skip" | "note";

/** One check's outcome, as `check --json` lists it. */
export type CheckLine = { status: Status; subject: string; text: string; fix: string | null };

/**
 * Prints one line per check as it completes (or, for `--json`, only keeps it) and counts the
 * problems.
 */
export class Report {
  problems = 0;
  readonly lines: CheckLine[] = [];
  constructor(
    private readonly io: CliIO,
    private readonly quiet = false,
  ) {}
  line(status: Status, subject: string, text: string, fix?: string): void {
    if (status === "FAIL") this.problems++;
    this.lines.push({
      status,
      subject,
      text: squish(text),
      fix: fix === undefined ? null : squish(fix),
    });
    if (this.quiet) return;
    const tail = fix === undefined ? "" : ` Fix: ${squish(fix)}`;
    const sentence = /[.!?]$/.test(text) || fix === undefined ? text : `${text}.`;
    this.io.stdout(`${status.padEnd(5)} ${subject}: ${squish(sentence)}${tail}\n`);
  }

  /** A FAIL line for a thrown error: its message, and its fix when it names one. */
  failed(subject: string, err: unknown): void {
    const fix = err instanceof Harness2Error && err.fix !== "" ? err.fix : undefined;
    this.line("FAIL", subject, err instanceof Error ? err.message : String(err), fix);
  }
}
