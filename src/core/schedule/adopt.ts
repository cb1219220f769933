// Adoption after a finished recursion: the blind selection, the reflection on it and the library
// add, plus the facts resume re-checks later (harness fingerprint, output digest). A library add
// that fails leaves the selection and its spend standing (see docs/differences.md, "Results").

import { selectionPool } from "../adoption/pool.ts";
import { reflectAdoption } from "../adoption/reflection.ts";
import { runSelection, type Selection, trivialSelection } from "../adoption/selection.ts";
import { type ModeToken, PhaseStarted } from "../events/registry.ts";
import { emit } from "../events/sink.ts";
import { diffSummary, type SurfaceSpec, type Tree } from "../harness/tree.ts";
import { describeError, tracebackOf } from "../lib/errors.ts";
import { treeFingerprint } from "../lib/fingerprint.ts";
import { InterruptedError, throwIfInterrupted } from "../lib/interrupt.ts";
import type { Library } from "../library/library.ts";
import { decisionsOf, type ModeRecord, type ModeResult } from "../recursion/records.ts";
import { adoptedOutput, isBlankOutput, outputDigest } from "../resume/resume.ts";
import type { SelectionRecord } from "../resume/summary.ts";
import type { Rolled } from "../rollout/rollouts.ts";
import { harnessDirOf, modeTaskDir, type ScheduleInputs, taskFields } from "./inputs.ts";

export type TaskContext = {
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
 * `libraryFailure` beside the finished selection (fix docs/differences.md R5, S6).
 */
export async function adopt(
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
    // Fix docs/differences.md R16: a state deliverable shown as its trajectory is not
    // "undelivered".
    const stateShown = sel.evidence === "trajectory" && inputs.adapter.spec.stateDeliverable;
    if (chosen !== undefined && !chosen.delivered && !stateShown) {
      errors.push(`${mode}: selected run ${chosen.runId} produced no deliverable`);
    }
  }
  let libraryFailure: LibraryFailure | null = null;
  if (lib !== undefined && sel.ok && experience !== null && record.ok) {
    // A lesson is stored only for a mode that is recorded as finished, never for an interrupted
    // one.
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
      // Fix docs/differences.md R5, S6: the original let this wipe the mode's whole result,
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
export async function interruptedPlus<T>(usd: number, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw err instanceof InterruptedError ? err.plus(usd) : err;
  }
}

function emitPhase(t: TaskContext, mode: ModeToken, phase: "selection" | "reflection"): void {
  emit(t.inputs.sink, PhaseStarted, {
    ...taskFields(t.inputs, t.domain, t.taskId),
    mode,
    k: t.inputs.k,
    phase,
  });
}
