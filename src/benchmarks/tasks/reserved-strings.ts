// A task whose own files hold a reserved string — one that only a grader's output carries
// (src/core/safety/markers.ts) — is found before anything runs (issue 35): its evidence would be
// shown to no model, so every stage of it would fall back after the rollouts were paid for. The
// scan is the tripwire's own (src/core/safety/tripwires.ts), run on task.md and inputs/; the
// problem names the file and where, never the string itself.

import { NULL_SINK, SYSTEM_CLOCK } from "../../core/events/sink.ts";
import { maskMarker } from "../../core/safety/markers.ts";
import { TripwireError } from "../../core/safety/tripwire.ts";
import {
  assertNoGraderVerdicts,
  assertTreeHasNoGraderVerdicts,
} from "../../core/safety/tripwires.ts";
import type { TaskEntry, TaskProblem } from "./task-folder.ts";

export const RESERVED_FIX =
  'rename it in the task; the reserved strings are listed in fixtures/tasks/README.md, "Reserved strings"';

/** One refusing problem per task file holding a reserved string (the first found in each part). */
export function reservedStringProblems(
  tasks: readonly Pick<TaskEntry, "id" | "dir" | "instructions" | "inputsDir">[],
): (TaskProblem & { subject: string })[] {
  const ctx = { sink: NULL_SINK, clock: SYSTEM_CLOCK, sweep: "preflight", stage: "preflight" };
  const problems: (TaskProblem & { subject: string })[] = [];
  for (const task of tasks) {
    const parts: [string, () => void][] = [
      ["task.md", () => assertTreeHasNoGraderVerdicts({ "task.md": task.instructions }, ctx)],
    ];
    const inputs = task.inputsDir;
    if (inputs !== null) parts.push(["inputs/", () => assertNoGraderVerdicts(inputs, ctx)]);
    for (const [part, scan] of parts) {
      try {
        scan();
      } catch (err) {
        if (!(err instanceof TripwireError)) throw err;
        const file = part === "task.md" ? "task.md" : `inputs/${err.path}`;
        const at = err.offset === undefined ? "in its name" : `at byte ${err.offset}`;
        problems.push({
          path: `${task.dir}/${file}`,
          subject: `${task.id}/${file}`,
          problem: `holds a reserved string (${maskMarker(err.marker)}, ${at}) that only a grader's output carries: blocked before any model saw it, as its evidence would be shown to no model`,
          fix: RESERVED_FIX,
          refuses: true,
        });
      }
    }
  }
  return problems;
}
