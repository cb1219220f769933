// How a finished `run` ends (issue 35): one verdict line — tasks ok, failed and skipped, lessons
// stored, spend — and the exact commands that come next: judge and report the sweep, take the
// adopted harness home with `harness export`, and `show` when something went wrong. The demo has
// its own richer ending (src/benchmarks/demo/payoff.ts); an interrupted or capped sweep ends with
// the line that says how to resume (src/cli/sweep/sweep-session.ts).

import { formatUsd } from "../../core/lib/format.ts";
import { MODE_NAMES } from "../../core/run/naming.ts";
import type { SweepTally } from "./sweep-tally.ts";

export type VerdictInputs = {
  events: SweepTally;
  sweep: string;
  /** How to run harness2 here (`harness2`, or the checkout's launcher). */
  self: string;
  /** ` --runs DIR` when the command was given one: the hints must work as printed. */
  runsFlag: string;
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The lines a finished sweep ends with; empty when it did not finish (nothing to judge yet). */
export function verdictLines(v: VerdictInputs): string[] {
  const finished = v.events.ofType("sweep.finished").at(-1);
  if (finished === undefined || finished.status === "interrupted") return [];
  const lessons = v.events.ofType("library.added").filter((e) => !e.restored);
  const problems = v.events
    .ofType("task.finished")
    .filter((t) => t.status !== "ok")
    .map((t) => t.task);
  const spend = formatUsd(finished.usd);
  const verdict =
    `Verdict: ${plural(finished.tasksOk, "task")} adapted, ${finished.tasksFailed} failed, ` +
    `${finished.tasksSkipped} already done; ${plural(lessons.length, "lesson")} stored in the library; ${spend} spent.`;
  const h = v.self;
  const r = v.runsFlag;
  const next = [
    `  ${h} judge ${v.sweep} --bases${r}   score the adopted and the base runs (outside the method)`,
    `  ${h} report ${v.sweep}${r}   the scores and the paired delta against the base harness`,
  ];
  // The harness to take home: the domain of the newest lesson, in the mode that stored it.
  const home = lessons.at(-1) ?? v.events.ofType("library.added").at(-1);
  if (home !== undefined) {
    const mode = home.mode === "seq" ? ` --mode ${MODE_NAMES.seq}` : "";
    next.push(
      `  ${h} harness export ./adapted-harness --domain ${home.domain}${mode}${r}   the adopted harness, ready to drop into a project`,
    );
  }
  if (problems.length > 0) {
    next.push(`  ${h} show ${v.sweep}${r}   what went wrong in ${problems.join(", ")}`);
  } else {
    next.push(`  ${h} show ${v.sweep}${r}   the stages, selections and lessons as text`);
  }
  return ["", verdict, "Next:", ...next];
}
