// What a sweep, a domain and a task run with (the scheduler's inputs), the checks made on them
// before any work starts, and where each mode's task folder lives. No work happens here.

import { join } from "node:path";
import { ModeToken } from "../events/registry.ts";
import type { Clock, EventSink } from "../events/sink.ts";
import type { PythonChecker } from "../harness/python-check.ts";
import { Harness2Error } from "../lib/errors.ts";
import type { RecursionLimits } from "../recursion/records.ts";
import type { TaskRecordSource } from "../resume/resume.ts";
import { taskDir } from "../run/naming.ts";
import type { RunConfig } from "../run/run-config.ts";
import type { BenchmarkAdapter } from "../seams/benchmark.ts";
import type { ProposerLike } from "../seams/channel.ts";

/** A run request the scheduler refuses before doing any work. */
export class ScheduleInputError extends Harness2Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The limits the scheduler reads (each a flag/env with the original's default). A missing
 * `libraryMaxEntries` or `libraryMaxBytes` is 0: no cap of that kind.
 */
export type ScheduleLimits = RecursionLimits &
  Pick<RunConfig, "domainWorkers"> &
  Partial<Pick<RunConfig, "libraryMaxEntries" | "libraryMaxBytes" | "modesAtOnce">>;

/** Everything a sweep (and each of its domains and tasks) runs with. */
export type ScheduleInputs = {
  adapter: BenchmarkAdapter;
  proposer: ProposerLike;
  /** Selector and reflection sessions; defaults to `proposer` (the CLI picks them, docs/method.md §4). */
  selector?: ProposerLike;
  limits: ScheduleLimits;
  /** `<bench runs root>/adapt`: namespaces, task dirs and summaries go under it. */
  runsRoot: string;
  /** `<bench runs root>/library/<bench>/k<k>-<variant>`; null runs without a library. */
  libraryRoot: string | null;
  k: number;
  modes: readonly ModeToken[];
  seed?: number | null;
  tag?: string;
  sink: EventSink;
  clock: Clock;
  /** The sweep id every event carries. */
  sweep: string;
  /** Where resume reads a task's last record (default: its summary.json). */
  records?: TaskRecordSource;
  python?: PythonChecker;
  /**
   * Interrupts the sweep (q / Ctrl-C): every running improver call and execution gets it, and no
   * task, mode, phase, stage, rollout, selection, reflection or library add starts once it is
   * aborted. The task in hand emits no `task.finished`/`mode.finished` (the store shows it
   * interrupted), its interrupted mode is never written to the summary, and finished work is
   * kept, so the next run of the same command resumes it.
   */
  signal?: AbortSignal;
};

export function validateInputs(inputs: ScheduleInputs): void {
  if (!Number.isInteger(inputs.k) || inputs.k < 1) {
    throw new ScheduleInputError("k", `k must be an integer ≥ 1, got ${inputs.k}`);
  }
  for (const field of ["libraryMaxEntries", "libraryMaxBytes"] as const) {
    const cap = inputs.limits[field] ?? 0;
    if (!Number.isInteger(cap) || cap < 0) {
      throw new ScheduleInputError(
        field,
        `${field} must be an integer ≥ 0 (0 = no cap), got ${cap}`,
      );
    }
  }
  if (inputs.modes.length === 0) {
    throw new ScheduleInputError("modes", "at least one mode must run (agg and/or seq)");
  }
  for (const m of inputs.modes) {
    if (!ModeToken.safeParse(m).success) {
      throw new ScheduleInputError("modes", `unknown mode token '${m}': agg or seq`);
    }
  }
  if (new Set(inputs.modes).size !== inputs.modes.length) {
    throw new ScheduleInputError("modes", `a mode is listed twice: ${inputs.modes.join(", ")}`);
  }
}

export function modeNamespace(inputs: ScheduleInputs, mode: ModeToken) {
  return {
    benchmark: inputs.adapter.spec.name,
    substrate: inputs.adapter.substrate.name,
    mode,
    k: inputs.k,
    seed: inputs.seed ?? null,
    tag: inputs.tag ?? "",
  };
}

/** `<runsRoot>/<mode ns>/<task slug>`. */
export function modeTaskDir(inputs: ScheduleInputs, mode: ModeToken, taskId: string): string {
  return taskDir(inputs.runsRoot, modeNamespace(inputs, mode), taskId);
}

/** Where a task's summary lives: the agg namespace's task dir, whichever modes run. */
export function summaryDir(inputs: ScheduleInputs, taskId: string): string {
  return modeTaskDir(inputs, "agg", taskId);
}

export function harnessDirOf(inputs: ScheduleInputs, taskId: string) {
  return (mode: ModeToken, label: string) =>
    join(modeTaskDir(inputs, mode, taskId), "harnesses", label);
}

/** The per-event fields of a task's events. */
export function taskFields(inputs: ScheduleInputs, domain: string, task: string) {
  return { ts: inputs.clock.now(), sweep: inputs.sweep, domain, task };
}
