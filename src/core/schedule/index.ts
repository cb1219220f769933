// The scheduler: one sweep (domains under a worker limit), one domain (strict stream order, the
// library retained to earlier tasks), one task (shared bases, each mode's recursion, adoption).
// It checkpoints every mode and never reads a score. An interrupt stops all work in hand at
// once: the mode and task in hand stay unfinished and unrecorded, what finished is kept, and the
// same command resumes. docs/method.md describes the method; docs/architecture.md this folder.

export { type DomainResult, type DomainRow, domainLibraries, runDomain } from "./domain.ts";
export {
  modeTaskDir,
  ScheduleInputError,
  type ScheduleInputs,
  type ScheduleLimits,
  summaryDir,
} from "./inputs.ts";
export { runSweep, type SweepOptions, type SweepResult } from "./sweep.ts";
export { runTask, type TaskOutcome, type TaskPosition } from "./task.ts";
