// One task: the resume decision, the k shared base rollouts, each mode that is not finished and
// intact (both at once by default), a checkpoint of the task's record after each mode, and the
// adoption facts the store keeps for resume. It never reads a score.

import {
  AdoptionRecorded,
  type ModeToken,
  TaskFinished,
  TaskSkipped,
  TaskStarted,
} from "../events/registry.ts";
import { emit } from "../events/sink.ts";
import { readTree } from "../harness/tree.ts";
import { InterruptedError, throwIfInterrupted } from "../lib/interrupt.ts";
import { roundUsd } from "../lib/money.ts";
import type { Library } from "../library/library.ts";
import { restoreLibraries, SUMMARY_FILE_SOURCE, shouldSkipTask } from "../resume/resume.ts";
import {
  NO_BASE_ERROR,
  type SelectionRecord,
  type TaskStatus,
  TaskSummary,
  writeSummary,
} from "../resume/summary.ts";
import { rollBases } from "../rollout/rollouts.ts";
import { runId } from "../run/naming.ts";
import type { TaskContext } from "./adopt.ts";
import {
  harnessDirOf,
  modeNamespace,
  type ScheduleInputs,
  summaryDir,
  taskFields,
  validateInputs,
} from "./inputs.ts";
import { type ModeOutcome, runOneMode } from "./mode.ts";

/** What `runTask` returns: the task's merged record (as written), or why it was skipped. */
export type TaskOutcome = {
  taskId: string;
  domain: string;
  status: TaskStatus | "skipped";
  /** The record on disk after this run (or the one that made it skip). */
  summary: TaskSummary | null;
  /** Modes this run executed. */
  ran: ModeToken[];
  /** Modes reused from the record because they were finished and intact. */
  reused: ModeToken[];
  usd: number;
  errors: string[];
};

export type TaskPosition = {
  /** 1-based place in the domain's stream, and the stream's length. */
  index: number;
  of: number;
  libraries?: Partial<Record<ModeToken, Library>>;
};

function taskFinished(
  inputs: ScheduleInputs,
  domain: string,
  taskId: string,
  status: TaskStatus,
  summary: TaskSummary,
  usd: number,
  startedAt: number,
): void {
  const modes: Record<string, string> = {};
  for (const [mode, entry] of Object.entries(summary.modes)) {
    modes[mode] = entry && "status" in entry ? entry.status : "failed";
  }
  emit(inputs.sink, TaskFinished, {
    ...taskFields(inputs, domain, taskId),
    k: inputs.k,
    status: status === "base-failed" ? "failed" : status,
    modes,
    usd,
    wallS: Math.max(0, (inputs.clock.now() - startedAt) / 1000),
    error: summary.errors.join("; "),
  });
}

/**
 * Runs one task: resume check, k shared base rollouts, each requested mode that is not already
 * finished and intact (checkpointing summary.json after each), and the final merged summary.
 */
export async function runTask(
  inputs: ScheduleInputs,
  taskId: string,
  position: TaskPosition = { index: 1, of: 1 },
): Promise<TaskOutcome> {
  validateInputs(inputs);
  const { adapter } = inputs;
  const domain = adapter.domainOf(taskId);
  const surface = adapter.substrate.surface();
  const libraries = position.libraries ?? {};
  const dir = summaryDir(inputs, taskId);
  const startedAt = inputs.clock.now();
  emit(inputs.sink, TaskStarted, {
    ...taskFields(inputs, domain, taskId),
    k: inputs.k,
    modes: [...inputs.modes],
    index: position.index,
    of: position.of,
    taskDir: dir,
  });

  const decision = await shouldSkipTask({
    taskId,
    summaryDir: dir,
    modes: inputs.modes,
    source: inputs.records ?? SUMMARY_FILE_SOURCE,
    adapter,
    surface,
    harnessDirOf: harnessDirOf(inputs, taskId),
  });
  const previous = decision.summary;
  if (decision.skip && previous !== null) {
    restoreLibraries(previous, decision.intact, libraries, surface, harnessDirOf(inputs, taskId));
    emit(inputs.sink, TaskSkipped, {
      ...taskFields(inputs, domain, taskId),
      k: inputs.k,
      reason: decision.reason,
    });
    return {
      taskId,
      domain,
      status: "skipped",
      summary: previous,
      ran: [],
      reused: [...decision.intact],
      usd: 0,
      errors: previous.errors,
    };
  }
  // Intact modes of a task that must re-run for another mode are not run again.
  const reused = previous !== null ? decision.intact : [];
  const toRun = inputs.modes.filter((m) => !reused.includes(m));
  if (previous !== null)
    restoreLibraries(previous, reused, libraries, surface, harnessDirOf(inputs, taskId));

  throwIfInterrupted(inputs.signal, `task ${taskId}`);
  const baseTree = readTree(surface, await adapter.baseHarness());
  const aggNs = modeNamespace(inputs, "agg");
  const bases = await rollBases(
    {
      adapter,
      surface,
      scope: {
        sink: inputs.sink,
        clock: inputs.clock,
        sweep: inputs.sweep,
        domain,
        task: taskId,
        k: inputs.k,
      },
      workDir: dir,
      runIdOf: (label) => runId(aggNs, taskId, label),
      rolloutTimeoutS: inputs.limits.rolloutTimeoutS,
      ...(inputs.signal ? { signal: inputs.signal } : {}),
    },
    inputs.k,
    inputs.limits.phaseWidth,
  );
  const record: TaskSummary = {
    taskId,
    domain,
    k: inputs.k,
    seed: inputs.seed ?? null,
    status: "partial",
    base: bases.map((b) => ({ label: b.view.label, runId: b.view.runId, runDir: b.view.runDir })),
    modes: {},
    selections: {},
    errors: [],
  };
  let usd = 0;
  // base-failed is decided on `ok` (a run folder was produced), not `delivered`, deliberately and
  // as the original does (docs/differences.md R3): a base that ran but delivered nothing is the
  // most useful evidence the improvers can get (its trajectory shows why it failed), and a task
  // whose deliverable is its state never "delivers" a file at all. Only when no base ran is there
  // nothing to learn from.
  if (!bases.some((b) => b.view.ok)) {
    const written = await writeSummary(dir, {
      ...record,
      status: "base-failed",
      errors: [NO_BASE_ERROR],
    });
    taskFinished(inputs, domain, taskId, "base-failed", written, 0, startedAt);
    return {
      taskId,
      domain,
      status: "base-failed",
      summary: written,
      ran: [],
      reused,
      usd: 0,
      errors: written.errors,
    };
  }

  const t: TaskContext = { inputs, taskId, domain, surface, baseTree, bases, libraries };
  let written = TaskSummary.parse(record);
  const done = new Map<ModeToken, ModeOutcome>();
  // Checkpoint after each mode: a killed run resumes from here. The record is rebuilt in the
  // modes' own order each time, so it reads the same whichever mode finished first. The adoption
  // facts follow the checkpoint, so a mode the store holds facts for has its summary.json export.
  const checkpoint = async (mode: ModeToken, outcome: ModeOutcome) => {
    done.set(mode, outcome);
    const ordered = toRun.filter((m) => done.has(m));
    record.modes = {};
    record.selections = {};
    record.errors = [];
    for (const m of ordered) {
      const o = done.get(m) as ModeOutcome;
      record.modes[m] = o.entry;
      if (o.selection !== null) record.selections[m] = o.selection;
      record.errors.push(...o.errors);
    }
    written = await writeSummary(dir, { ...record, status: "partial" });
    if (outcome.selection !== null) emitAdoption(inputs, domain, mode, outcome.selection);
  };
  // After the shared base rollouts the modes are independent (own namespaces, ledgers and
  // libraries): with modesAtOnce 2 they run together under the same phase and session limits.
  const together = Math.max(1, Math.min(inputs.limits.modesAtOnce ?? 1, toRun.length));
  usd = await runModes(toRun, together, (mode) => runOneMode(t, mode), checkpoint);
  const status = written.status;
  taskFinished(inputs, domain, taskId, status, written, usd, startedAt);
  return {
    taskId,
    domain,
    status,
    summary: written,
    ran: toRun,
    reused,
    usd,
    errors: written.errors,
  };
}

/** Two modes interrupted together: one interruption carrying both spends. */
const joined = (a: InterruptedError | null, b: InterruptedError): InterruptedError =>
  a === null ? b : a.plus(b.usd);

/**
 * Runs `modes`, `together` at a time; each outcome is checkpointed (one at a time) as it comes.
 * Returns the spend of all. An interrupt is thrown once every running mode has settled, carrying
 * the spend of every mode (finished ones included), as a serial run's would.
 */
async function runModes(
  modes: readonly ModeToken[],
  together: number,
  run: (mode: ModeToken) => Promise<ModeOutcome>,
  checkpoint: (mode: ModeToken, outcome: ModeOutcome) => Promise<void>,
): Promise<number> {
  const state: { usd: number; interrupted: InterruptedError | null; failure: unknown } = {
    usd: 0,
    interrupted: null,
    failure: null,
  };
  let saving: Promise<void> = Promise.resolve();
  const queue = [...modes];
  const worker = async () => {
    for (let mode = queue.shift(); mode !== undefined; mode = queue.shift()) {
      // As in a serial run, no mode starts after an interrupt.
      if (state.interrupted !== null) return;
      try {
        const outcome = await run(mode);
        state.usd = roundUsd(state.usd + outcome.usd);
        saving = saving.then(() => checkpoint(mode, outcome));
        await saving;
      } catch (err) {
        if (err instanceof InterruptedError) {
          state.interrupted = joined(state.interrupted, err);
        } else state.failure ??= err;
        return;
      }
    }
  };
  await Promise.all(Array.from({ length: together }, worker));
  if (state.failure !== null) throw state.failure;
  if (state.interrupted !== null) throw state.interrupted.plus(state.usd);
  return state.usd;
}

/** The facts resume re-checks about one mode's adoption, for the store. */
function emitAdoption(
  inputs: ScheduleInputs,
  domain: string,
  mode: ModeToken,
  sel: SelectionRecord,
): void {
  emit(inputs.sink, AdoptionRecorded, {
    ...taskFields(inputs, domain, sel.taskId),
    mode,
    k: inputs.k,
    chosenLabel: sel.chosenLabel,
    chosenRunId: sel.chosenRunId,
    chosenRunDir: sel.chosenRunDir,
    harnessFingerprint: sel.harnessFingerprint,
    outputDigest: sel.outputDigest,
    chosenTreeIsBase: sel.chosenTreeIsBase,
    evidence: sel.evidence,
    experience: sel.experience,
  });
}
