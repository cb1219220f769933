// One mode of one task, start to finish: the recursion, then adoption, then one mode.finished.
// A failure is recorded in the mode's entry and never thrown; an interrupt throws and records
// nothing.

import { expectedRollouts, expectedSessions } from "../events/budget.ts";
import { ModeFinished, ModeStarted, type ModeToken } from "../events/registry.ts";
import { emit } from "../events/sink.ts";
import { describeError, tracebackOf } from "../lib/errors.ts";
import { InterruptedError, throwIfInterrupted } from "../lib/interrupt.ts";
import { roundUsd } from "../lib/money.ts";
import { runMode } from "../recursion/modes.ts";
import {
  type ModeEntry,
  ModeFailure,
  type ModeResult,
  modeRecord,
  truncate,
} from "../recursion/records.ts";
import type { SelectionRecord } from "../resume/summary.ts";
import { runId } from "../run/naming.ts";
import { adopt, type TaskContext } from "./adopt.ts";
import { modeNamespace, modeTaskDir, taskFields } from "./inputs.ts";

export type ModeOutcome = {
  entry: ModeEntry;
  selection: SelectionRecord | null;
  errors: string[];
  usd: number;
};

/**
 * One mode of one task, start to finish. Never throws for a failure, which is recorded in its
 * entry; an interrupt throws InterruptedError (with the mode's spend) and records nothing.
 */
export async function runOneMode(t: TaskContext, mode: ModeToken): Promise<ModeOutcome> {
  const { inputs, taskId } = t;
  throwIfInterrupted(inputs.signal, `mode ${mode}`);
  const fields = () => ({ ...taskFields(inputs, t.domain, taskId), mode, k: inputs.k });
  emit(inputs.sink, ModeStarted, { ...fields() });
  const ns = modeNamespace(inputs, mode);
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
    emit(inputs.sink, ModeFinished, {
      ...fields(),
      status: "failed",
      R: 0,
      P: 0,
      expectedR: expectedRollouts(inputs.k),
      expectedP: expectedSessions(inputs.k),
      fellBack: [],
      keptBase: [],
      similarity: null,
      usd: 0,
      error: truncate(error),
    });
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
    // Fix docs/differences.md R5: the recursion's record (and the money it spent) is kept.
    const error = describeError(err);
    record = { ...record, status: "failed", ok: false, error, traceback: tracebackOf(err) };
    errors.push(`${mode}: ${error}`);
  }
  const usd = roundUsd(result.ledger.usd + (selection?.usd ?? 0));
  emit(inputs.sink, ModeFinished, {
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
  });
  return { entry: record, selection, errors, usd };
}
