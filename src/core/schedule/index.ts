// The scheduler (spec/03 §4.5–§4.10): one task (shared bases, each mode's recursion, selection,
// reflection, library), one domain (strict stream order, library retained to earlier tasks), one
// sweep (domains under a worker limit). It checkpoints every mode and never reads a score. An
// interrupt stops all work in hand at once: the mode and task in hand stay unfinished
// (interrupted) and unrecorded, what finished is kept, and the same command resumes.

import { join } from "node:path";
import { reflectAdoption } from "../adoption/reflection.ts";
import {
  runSelection,
  type Selection,
  selectionPool,
  trivialSelection,
} from "../adoption/selection.ts";
import {
  type Clock,
  type EventSink,
  ModeFinished,
  ModeStarted,
  ModeToken,
  PhaseStarted,
  SweepFinished,
  SweepStarted,
  TaskFinished,
  TaskSkipped,
  TaskStarted,
} from "../events/registry.ts";
import type { PythonChecker } from "../harness/python-check.ts";
import { diffSummary, readTree, type SurfaceSpec, type Tree } from "../harness/tree.ts";
import { treeFingerprint } from "../lib/fingerprint.ts";
import { InterruptedError, throwIfInterrupted } from "../lib/interrupt.ts";
import { mapLimited } from "../lib/limiter.ts";
import { Library } from "../library/library.ts";
import { runMode } from "../recursion/modes.ts";
import {
  decisionsOf,
  describeError,
  type ModeEntry,
  ModeFailure,
  type ModeRecord,
  type ModeResult,
  modeRecord,
  type RecursionLimits,
  type Rolled,
  truncate,
} from "../recursion/records.ts";
import {
  adoptedOutput,
  isBlankOutput,
  outputDigest,
  restoreLibraries,
  SUMMARY_FILE_SOURCE,
  shouldSkipTask,
  type TaskRecordSource,
} from "../resume/resume.ts";
import {
  NO_BASE_ERROR,
  type SelectionRecord,
  type TaskStatus,
  TaskSummary,
  writeSummary,
} from "../resume/summary.ts";
import { rollBases } from "../rollout/rollouts.ts";
import type { RunConfig } from "../run/config.ts";
import { runId, taskDir } from "../run/naming.ts";
import type { BenchmarkAdapter } from "../seams/benchmark.ts";
import type { ProposerLike } from "../seams/channel.ts";
import { type StreamOptions, taskStream } from "./stream.ts";

/** A run request the scheduler refuses before doing any work. */
export class ScheduleInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = "ScheduleInputError";
  }
}

/**
 * The limits the scheduler reads (each a flag/env with the original's default). A missing
 * `libraryMaxEntries` or `libraryMaxBytes` is 0: no cap of that kind.
 */
export type ScheduleLimits = RecursionLimits &
  Pick<RunConfig, "domainWorkers"> &
  Partial<Pick<RunConfig, "libraryMaxEntries" | "libraryMaxBytes">>;

/** Everything a sweep (and each of its domains and tasks) runs with. */
export type ScheduleInputs = {
  adapter: BenchmarkAdapter;
  proposer: ProposerLike;
  /** Selector and reflection sessions; defaults to `proposer` (the CLI resolves spec/03 §4.4). */
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

function validateInputs(inputs: ScheduleInputs): void {
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

function namespace(inputs: ScheduleInputs, mode: ModeToken) {
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
  return taskDir(inputs.runsRoot, namespace(inputs, mode), taskId);
}

/** Where a task's summary lives: the agg namespace's task dir, whichever modes run. */
export function summaryDir(inputs: ScheduleInputs, taskId: string): string {
  return modeTaskDir(inputs, "agg", taskId);
}

function harnessDirOf(inputs: ScheduleInputs, taskId: string) {
  return (mode: ModeToken, label: string) =>
    join(modeTaskDir(inputs, mode, taskId), "harnesses", label);
}

/** The per-event fields of a task's events. */
function taskFields(inputs: ScheduleInputs, domain: string, task: string) {
  return { ts: inputs.clock.now(), sweep: inputs.sweep, domain, task };
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

// ── one mode ─────────────────────────────────────────────────────────────────────────────────

type ModeOutcome = {
  entry: ModeEntry;
  selection: SelectionRecord | null;
  errors: string[];
  usd: number;
};

type TaskContext = {
  inputs: ScheduleInputs;
  taskId: string;
  domain: string;
  surface: SurfaceSpec;
  baseTree: Tree;
  bases: readonly Rolled[];
  libraries: Partial<Record<ModeToken, Library>>;
};

async function adoptionFacts(
  t: TaskContext,
  mode: ModeToken,
  result: ModeResult,
  sel: Selection,
): Promise<SelectionRecord> {
  const chosen = sel.chosenLabel === "" ? undefined : result.rollouts[sel.chosenLabel];
  const chosenTree = result.trees[sel.chosenLabel] ?? t.baseTree;
  const d = diffSummary(t.surface, t.baseTree, chosenTree);
  let harnessFingerprint: string | null = null;
  let digest: string | null = null;
  if (sel.chosenLabel !== "") {
    harnessFingerprint = await treeFingerprint(
      harnessDirOf(t.inputs, t.taskId)(mode, sel.chosenLabel),
    );
    if (chosen?.ok) {
      const output = await adoptedOutput(t.inputs.adapter, chosen.runDir, sel.evidence);
      digest = isBlankOutput(output) ? null : outputDigest(output);
    }
  }
  return {
    ...sel,
    chosenRunDir: chosen?.runDir ?? "",
    chosenTreeIsBase: d.added.length + d.removed.length + d.modified.length === 0,
    harnessFingerprint,
    outputDigest: digest,
  };
}

/** A failure of the library add: the lesson was not stored, everything before it stands. */
type LibraryFailure = { error: string; traceback: string };

/**
 * Selection, reflection and the library add after a finished recursion. An interrupt throws
 * InterruptedError carrying the selection's spend when the selection had finished. A library
 * add that throws (a tripwire, a disk error) does not throw here: it comes back as
 * `libraryFailure` beside the finished selection (fix of spec/03 §6.5 / spec/04 §6.6).
 */
async function adopt(
  t: TaskContext,
  mode: ModeToken,
  result: ModeResult,
  record: ModeRecord,
): Promise<{
  selection: SelectionRecord;
  errors: string[];
  libraryFailure: LibraryFailure | null;
}> {
  const { inputs, taskId } = t;
  const signal = inputs.signal;
  const workDir = modeTaskDir(inputs, mode, taskId);
  const scope = { sweep: inputs.sweep, domain: t.domain, sink: inputs.sink, clock: inputs.clock };
  const pool = selectionPool(
    mode,
    inputs.k,
    new Map(Object.entries(result.rollouts)),
    t.bases.map((b) => b.view),
  );
  throwIfInterrupted(signal, `the selection of ${mode}`);
  emitPhase(t, mode, "selection");
  const base = {
    taskId,
    k: inputs.k,
    mode,
    candidates: pool,
    workDir,
    scope,
    adapter: inputs.adapter,
  };
  let sel =
    inputs.k === 1
      ? await trivialSelection(base)
      : await runSelection({
          ...base,
          prop: inputs.selector ?? inputs.proposer,
          ...(signal ? { signal } : {}),
        });
  const lib = t.libraries[mode];
  let experience = null;
  // A degraded mode adapted nothing, so it has no lesson to store (and is not ok).
  if (sel.ok && lib !== undefined && record.ok) {
    const selected = sel;
    const reflected = await interruptedPlus(selected.usd, async () => {
      throwIfInterrupted(signal, `the reflection of ${mode}`);
      emitPhase(t, mode, "reflection");
      return reflectAdoption({
        taskId,
        sel: selected,
        rollouts: Object.values(result.rollouts),
        adapter: inputs.adapter,
        prop: inputs.selector ?? inputs.proposer,
        workDir,
        decisions: decisionsOf(result.stages),
        scope,
        ...(signal ? { signal } : {}),
      });
    });
    sel = reflected.selection;
    experience = reflected.experience;
  }
  const selection = await adoptionFacts(t, mode, result, sel);
  const errors: string[] = [];
  if (!sel.ok) errors.push(`${mode}: selection failed: ${sel.error}`);
  else {
    const chosen = result.rollouts[sel.chosenLabel];
    // Fix of spec/03 §6.16: a state deliverable shown as its trajectory is not "undelivered".
    const stateShown = sel.evidence === "trajectory" && inputs.adapter.spec.stateDeliverable;
    if (chosen !== undefined && !chosen.delivered && !stateShown) {
      errors.push(`${mode}: selected run ${chosen.runId} produced no deliverable`);
    }
  }
  let libraryFailure: LibraryFailure | null = null;
  if (lib !== undefined && sel.ok && experience !== null && record.ok) {
    // A lesson is stored only for a mode that is recorded as finished, never for an interrupted one.
    if (signal?.aborted)
      throw new InterruptedError(`interrupted before the ${mode} library add`).plus(sel.usd);
    try {
      lib.add(taskId, result.trees[sel.chosenLabel] ?? t.baseTree, {
        why: sel.why,
        idMap: sel.idMap,
        label: sel.chosenLabel,
        runId: sel.chosenRunId,
        experience,
      });
    } catch (err) {
      // Fix of spec/03 §6.5 / spec/04 §6.6: the original let this wipe the mode's whole result,
      // a good selection record included. The selection (and its spend) stands; the caller
      // marks the mode failed so the next run retries the add from caches.
      if (err instanceof InterruptedError) throw err.plus(sel.usd);
      libraryFailure = {
        error: `library add failed: ${describeError(err)}`,
        traceback: tracebackOf(err),
      };
    }
  }
  return { selection, errors, libraryFailure };
}

/** Runs `work`; an interrupt inside it leaves with `usd` (spent before it) added. */
async function interruptedPlus<T>(usd: number, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw err instanceof InterruptedError ? err.plus(usd) : err;
  }
}

function emitPhase(t: TaskContext, mode: ModeToken, phase: "selection" | "reflection"): void {
  t.inputs.sink.emit(
    PhaseStarted.parse({
      type: "phase.started",
      ...taskFields(t.inputs, t.domain, t.taskId),
      mode,
      k: t.inputs.k,
      phase,
    }),
  );
}

function tracebackOf(err: unknown): string {
  const stack = err instanceof Error ? (err.stack ?? "") : "";
  return stack.length <= 1500 ? stack : stack.slice(-1500);
}

/**
 * One mode of one task, start to finish. Never throws for a failure, which is recorded in its
 * entry; an interrupt throws InterruptedError (with the mode's spend) and records nothing.
 */
async function runOneMode(t: TaskContext, mode: ModeToken): Promise<ModeOutcome> {
  const { inputs, taskId } = t;
  throwIfInterrupted(inputs.signal, `mode ${mode}`);
  const fields = () => ({ ...taskFields(inputs, t.domain, taskId), mode, k: inputs.k });
  inputs.sink.emit(ModeStarted.parse({ type: "mode.started", ...fields() }));
  const ns = namespace(inputs, mode);
  const lib = t.libraries[mode];
  let result: ModeResult;
  try {
    result = await runMode(mode, {
      adapter: inputs.adapter,
      proposer: inputs.proposer,
      surface: t.surface,
      limits: inputs.limits,
      scope: {
        sink: inputs.sink,
        clock: inputs.clock,
        sweep: inputs.sweep,
        domain: t.domain,
        task: taskId,
        mode,
        k: inputs.k,
      },
      workDir: modeTaskDir(inputs, mode, taskId),
      runIdOf: (label) => runId(ns, taskId, label),
      baseTree: t.baseTree,
      base: t.bases,
      library:
        lib?.servedView(inputs.limits.libraryMaxEntries ?? 0, inputs.limits.libraryMaxBytes ?? 0) ??
        null,
      ...(inputs.python ? { python: inputs.python } : {}),
      ...(inputs.signal ? { signal: inputs.signal } : {}),
    });
  } catch (err) {
    // Interrupted: no mode.finished, so the mode stays unfinished (interrupted) in the store.
    if (err instanceof InterruptedError) throw err;
    const error = describeError(err);
    inputs.sink.emit(
      ModeFinished.parse({
        type: "mode.finished",
        ...fields(),
        status: "failed",
        R: 0,
        P: 0,
        expectedR: 4 * inputs.k,
        expectedP: 3 * inputs.k,
        fellBack: [],
        keptBase: [],
        similarity: null,
        usd: 0,
        error: truncate(error),
      }),
    );
    return {
      entry: ModeFailure.parse({ mode, ok: false, error, traceback: tracebackOf(err) }),
      selection: null,
      errors: [`${mode}: ${error}`],
      usd: 0,
    };
  }

  let record = modeRecord(result);
  const errors = record.status === "degraded" ? record.errors.map((e) => `${mode}: ${e}`) : [];
  let selection: SelectionRecord | null = null;
  try {
    const adopted = await adopt(t, mode, result, record);
    selection = adopted.selection;
    errors.push(...adopted.errors);
    const failed = adopted.libraryFailure;
    if (failed !== null) {
      // Failed, not ok: the lesson is missing from the library, so the task must not be skipped.
      record = { ...record, status: "failed", ok: false, ...failed };
      errors.push(`${mode}: ${failed.error}`);
    }
  } catch (err) {
    // Interrupted after the recursion: nothing of it is selected, reflected on or stored; the
    // stages' replies and the rollouts' run marks make the next run cheap.
    if (err instanceof InterruptedError) throw err.plus(result.ledger.usd);
    // Fix of spec/03 §6.5: the recursion's record (and the money it spent) is kept.
    const error = describeError(err);
    record = { ...record, status: "failed", ok: false, error, traceback: tracebackOf(err) };
    errors.push(`${mode}: ${error}`);
  }
  const usd = round6(result.ledger.usd + (selection?.usd ?? 0));
  inputs.sink.emit(
    ModeFinished.parse({
      type: "mode.finished",
      ...fields(),
      status: record.status,
      R: record.ledger.R,
      P: record.ledger.P,
      expectedR: record.ledger.expectedR,
      expectedP: record.ledger.expectedP,
      fellBack: record.fellBack,
      keptBase: record.keptBase,
      similarity: record.similarity,
      usd,
      error: truncate(record.error || errors.join("; ")),
    }),
  );
  return { entry: record, selection, errors, usd };
}

// ── one task ─────────────────────────────────────────────────────────────────────────────────

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
  inputs.sink.emit(
    TaskFinished.parse({
      type: "task.finished",
      ...taskFields(inputs, domain, taskId),
      k: inputs.k,
      status: status === "base-failed" ? "failed" : status,
      modes,
      usd,
      wallS: Math.max(0, (inputs.clock.now() - startedAt) / 1000),
      error: summary.errors.join("; "),
    }),
  );
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
  inputs.sink.emit(
    TaskStarted.parse({
      type: "task.started",
      ...taskFields(inputs, domain, taskId),
      k: inputs.k,
      modes: [...inputs.modes],
      index: position.index,
      of: position.of,
      taskDir: dir,
    }),
  );

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
    inputs.sink.emit(
      TaskSkipped.parse({
        type: "task.skipped",
        ...taskFields(inputs, domain, taskId),
        k: inputs.k,
        reason: decision.reason,
      }),
    );
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
  const aggNs = namespace(inputs, "agg");
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
  // as the original does (spec/03 §6.3): a base that ran but delivered nothing is the most useful
  // evidence the improvers can get (its trajectory shows why it failed), and a task whose
  // deliverable is its state never "delivers" a file at all. Only when no base ran is there
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
  for (const mode of toRun) {
    // An interrupted mode leaves the checkpoint of the modes before it as the task's record.
    const outcome = await interruptedPlus(usd, () => runOneMode(t, mode));
    record.modes[mode] = outcome.entry;
    if (outcome.selection !== null) record.selections[mode] = outcome.selection;
    record.errors.push(...outcome.errors);
    usd = round6(usd + outcome.usd);
    // Checkpoint after each mode: a killed run resumes from here.
    written = await writeSummary(dir, { ...record, status: "partial" });
  }
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

// ── one domain ───────────────────────────────────────────────────────────────────────────────

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
    try {
      const outcome = await runTask(inputs, task, { index: i + 1, of: taskIds.length, libraries });
      const good = outcome.status === "ok" || outcome.status === "skipped";
      if (good) out.done++;
      else out.failed++;
      if (outcome.status === "skipped") out.skipped++;
      out.usd = round6(out.usd + outcome.usd);
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
        out.usd = round6(out.usd + err.usd);
        out.interrupted = true;
        out.interruptedTask = task;
        break;
      }
      out.failed++;
      out.tasks.push({ task, status: "exception", error: describeError(err), usd: 0 });
    }
  }
  return out;
}

// ── the sweep ────────────────────────────────────────────────────────────────────────────────

export type SweepOptions = StreamOptions & {
  /** What sweep.started records about the invocation (the CLI fills these). */
  argv?: string[];
  config?: Record<string, unknown>;
  identity?: Record<string, unknown>;
};

export type SweepResult = {
  benchmark: string;
  substrate: string;
  k: number;
  modes: ModeToken[];
  seed: number | null;
  tag: string;
  domainOrder: string[];
  maxTasks: number | null;
  onlyTasks: string[];
  startedAt: string;
  finishedAt: string;
  nDomains: number;
  /** In stream order (fix of spec/03 §6.23: the original returned completion order). */
  domains: (DomainResult | { domain: string; error: string })[];
};

/**
 * Runs every domain of the stream, up to `limits.domainWorkers` at once (tasks inside a domain
 * are always sequential). A domain that dies is reported as {domain, error}; the others go on.
 */
export async function runSweep(
  inputs: ScheduleInputs,
  opts: SweepOptions = {},
): Promise<SweepResult> {
  validateInputs(inputs);
  const { adapter } = inputs;
  const seed = inputs.seed ?? null;
  const stream = await taskStream(adapter, { ...opts, seed });
  const startedMs = inputs.clock.now();
  const startedAt = new Date(startedMs).toISOString();
  inputs.sink.emit(
    SweepStarted.parse({
      type: "sweep.started",
      ts: startedMs,
      sweep: inputs.sweep,
      bench: adapter.spec.name,
      substrate: adapter.substrate.name,
      ks: [inputs.k],
      modes: [...inputs.modes],
      seed,
      tag: inputs.tag ?? "",
      argv: opts.argv ?? [],
      config: opts.config ?? {},
      identity: opts.identity ?? {},
      runsRoot: inputs.runsRoot,
      domains: [...stream.entries()].map(([domain, tasks]) => ({ domain, tasks })),
    }),
  );
  const order = [...stream.keys()];
  const rows = await mapLimited(order, inputs.limits.domainWorkers, async (domain) => {
    try {
      return await runDomain(inputs, domain, stream.get(domain) ?? []);
    } catch (err) {
      return { domain, error: describeError(err) };
    }
  });
  const finishedMs = inputs.clock.now();
  const domains = rows.filter((r): r is DomainResult => !("error" in r));
  const dead = rows.length - domains.length;
  const sum = (f: (d: DomainResult) => number) => domains.reduce((s, d) => s + f(d), 0);
  const failed = sum((d) => d.failed);
  inputs.sink.emit(
    SweepFinished.parse({
      type: "sweep.finished",
      ts: finishedMs,
      sweep: inputs.sweep,
      status: inputs.signal?.aborted ? "interrupted" : failed === 0 && dead === 0 ? "ok" : "failed",
      tasksOk: sum((d) => d.done - d.skipped),
      tasksFailed: failed,
      tasksSkipped: sum((d) => d.skipped),
      usd: round6(sum((d) => d.usd)),
      wallS: Math.max(0, (finishedMs - startedMs) / 1000),
    }),
  );
  return {
    benchmark: adapter.spec.name,
    substrate: adapter.substrate.name,
    k: inputs.k,
    modes: [...inputs.modes],
    seed,
    tag: inputs.tag ?? "",
    domainOrder: order,
    maxTasks: opts.maxTasks ?? null,
    onlyTasks: [...(opts.onlyTasks ?? [])],
    startedAt,
    finishedAt: new Date(finishedMs).toISOString(),
    nDomains: order.length,
    domains: rows,
  };
}
