// One domain: its tasks strictly in stream order, each mode's library retained to the tasks before
// the one that runs, so a task never sees its own or a later lesson.

import { join } from "node:path";
import { type ModeToken, TaskFinished } from "../events/registry.ts";
import { emit } from "../events/sink.ts";
import { describeError } from "../lib/errors.ts";
import { InterruptedError } from "../lib/interrupt.ts";
import { roundUsd } from "../lib/money.ts";
import { Library } from "../library/library.ts";
import { truncate } from "../recursion/records.ts";
import type { TaskStatus } from "../resume/summary.ts";
import { type ScheduleInputs, taskFields, validateInputs } from "./inputs.ts";
import { runTask } from "./task.ts";

export type DomainRow = {
  task: string;
  status: TaskStatus | "skipped" | "exception";
  error?: string;
  /** Library entries per mode just before the task ran (absent after an exception). */
  libraryEntriesBefore?: Partial<Record<ModeToken, number>>;
  usd: number;
};

export type DomainResult = {
  domain: string;
  nTasks: number;
  seed: number | null;
  done: number;
  failed: number;
  skipped: number;
  usd: number;
  tasks: DomainRow[];
  /** The sweep was interrupted before every task of the domain ran. */
  interrupted: boolean;
  /** The task the interrupt stopped while it ran (absent when it came between tasks). */
  interruptedTask?: string;
};

/** One library per mode for this domain, or none when the sweep runs without a library. */
export function domainLibraries(
  inputs: ScheduleInputs,
  domain: string,
): Partial<Record<ModeToken, Library>> {
  const out: Partial<Record<ModeToken, Library>> = {};
  if (inputs.libraryRoot === null) return out;
  for (const mode of inputs.modes) {
    out[mode] = new Library({
      root: join(inputs.libraryRoot, mode),
      domain,
      surface: inputs.adapter.substrate.surface(),
      mode,
      k: inputs.k,
      sweep: inputs.sweep,
      sink: inputs.sink,
      clock: inputs.clock,
      leakGlobs: inputs.adapter.spec.leakGlobs,
    });
  }
  return out;
}

/**
 * Runs a domain's tasks strictly in stream order. Before each task every mode's library keeps
 * only the entries of the tasks before it, so a task never sees its own or a later lesson.
 */
export async function runDomain(
  inputs: ScheduleInputs,
  domain: string,
  taskIds: readonly string[],
): Promise<DomainResult> {
  validateInputs(inputs);
  const libraries = domainLibraries(inputs, domain);
  const out: DomainResult = {
    domain,
    nTasks: taskIds.length,
    seed: inputs.seed ?? null,
    done: 0,
    failed: 0,
    skipped: 0,
    usd: 0,
    tasks: [],
    interrupted: false,
  };
  for (const [i, task] of taskIds.entries()) {
    if (inputs.signal?.aborted) {
      out.interrupted = true;
      break;
    }
    const before: Partial<Record<ModeToken, number>> = {};
    for (const [mode, lib] of Object.entries(libraries) as [ModeToken, Library][]) {
      lib.retain(taskIds.slice(0, i));
      before[mode] = lib.entries().length;
    }
    const startedAt = inputs.clock.now();
    try {
      const outcome = await runTask(inputs, task, { index: i + 1, of: taskIds.length, libraries });
      const good = outcome.status === "ok" || outcome.status === "skipped";
      if (good) out.done++;
      else out.failed++;
      if (outcome.status === "skipped") out.skipped++;
      out.usd = roundUsd(out.usd + outcome.usd);
      out.tasks.push({
        task,
        status: outcome.status,
        ...(good ? {} : { error: outcome.errors.join("; ") || outcome.status }),
        libraryEntriesBefore: before,
        usd: outcome.usd,
      });
    } catch (err) {
      if (err instanceof InterruptedError) {
        // Neither done nor failed: it resumes on the next run. What it spent still counts.
        out.usd = roundUsd(out.usd + err.usd);
        out.interrupted = true;
        out.interruptedTask = task;
        break;
      }
      // Any other error ends this task as failed, with its reason, in every front end and the
      // store (docs/differences.md X14); the domain goes on with its next task.
      const error = describeError(err);
      out.failed++;
      out.tasks.push({ task, status: "exception", error, usd: 0 });
      emit(inputs.sink, TaskFinished, {
        ...taskFields(inputs, domain, task),
        k: inputs.k,
        status: "failed",
        modes: {},
        usd: 0,
        wallS: Math.max(0, (inputs.clock.now() - startedAt) / 1000),
        error: truncate(error),
      });
    }
  }
  return out;
}
