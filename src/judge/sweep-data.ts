// Turns a sweep's stored records into what the judge scores (PickSubject, BaseSubject) and what the
// report summarises (PickCell, BaseCell). Pure: no database, no scorer; the store's reads come in
// as values (store/report-queries.ts) and nothing here decides a score.

import type { Judgment } from "../core/events/registry.ts";
import { ModeToken } from "../core/events/registry.ts";
import type { Similarity, StoredBase, StoredCell } from "../core/report/records.ts";
import { parseRunId } from "../core/run/naming.ts";
import { type BaseSubject, judgmentSubject, type PickSubject, pickRefusal } from "./judge.ts";

// The shapes this module reads are core's (src/core/report/records.ts): store/report-queries.ts
// returns them, so the judge depends on core only (docs/architecture.md "Dependency rules").
export type { Similarity, StoredBase, StoredCell, StoredRollout } from "../core/report/records.ts";

export type StoredRecords = { cells: readonly StoredCell[]; bases: readonly StoredBase[] };

/** A stored judgment, as the store's judgment rows hold it. */
export type StoredJudgment = Judgment;

/** A mode's record is complete (it may still have failed). */
const FINISHED = new Set(["ok", "degraded", "failed"]);

export type PickKind = "selector" | "trivial" | "fallback" | "failed";

/** One task × mode × k as the report sees it. */
export type PickCell = {
  task: string;
  domain: string;
  mode: ModeToken;
  k: number;
  sweep: string;
  carried: boolean;
  /** null: the mode never finished, so there is no pick. */
  pick: { kind: PickKind; label: string } | null;
  /** null: a pick that was never judged. An unjudgeable pick (fallback, failure) is ungraded. */
  judgment: Judgment | null;
  fellBack: number;
  similarity: Similarity | null;
  spend: { stages: number; selection: number; reflection: number; executor: number };
};

export type BaseCell = {
  task: string;
  k: number;
  runs: { label: string; judgment: Judgment | null }[];
  executor: number;
};

function modeOf(cell: StoredCell): ModeToken | null {
  const parsed = ModeToken.safeParse(cell.mode);
  return parsed.success ? parsed.data : null;
}

/**
 * The chosen run: by the selection's run id when recorded, else the record's finished rollout with
 * the chosen label (both modes share a task record, so a label both modes use is told apart by the
 * mode in its run id).
 */
function chosenRun(cell: StoredCell): { runId: string; runDir: string } {
  const sel = cell.selection;
  if (sel === null || sel.chosenLabel === "") return { runId: "", runDir: "" };
  if (sel.chosenRunId) {
    const byId = cell.rollouts.find((r) => r.runId === sel.chosenRunId);
    return { runId: sel.chosenRunId, runDir: sel.chosenRunDir || byId?.runDir || "" };
  }
  const labelled = cell.rollouts.filter((r) => r.label === sel.chosenLabel && r.finished);
  const ofMode =
    labelled.length > 1
      ? labelled.filter((r) => parseRunId(r.runId)?.namespace.mode === cell.mode)
      : labelled;
  const run = ofMode.length === 1 ? ofMode[0] : undefined;
  return { runId: run?.runId ?? "", runDir: sel.chosenRunDir || run?.runDir || "" };
}

function pickSubjectOf(cell: StoredCell, mode: ModeToken): PickSubject {
  const sel = cell.selection;
  const run = chosenRun(cell);
  return {
    kind: "pick",
    sweep: cell.sweepId,
    domain: cell.domain,
    task: cell.task,
    mode,
    k: cell.k,
    label: sel?.chosenLabel ?? "",
    runId: run.runId,
    runDir: run.runDir,
    ok: sel?.ok ?? false,
    fallback: sel?.fallback ?? false,
    selectionError: sel?.error ?? "",
    modeFailed: cell.modeStatus === "failed" ? cell.modeError || "the mode failed" : null,
  };
}

/** The pick of every task × mode × k whose mode finished, in the sweep's order. */
export function pickSubjects(records: StoredRecords): PickSubject[] {
  const out: PickSubject[] = [];
  for (const cell of records.cells) {
    const mode = modeOf(cell);
    if (mode === null || cell.modeStatus === null || !FINISHED.has(cell.modeStatus)) continue;
    out.push(pickSubjectOf(cell, mode));
  }
  return out;
}

function baseMode(b: StoredBase): ModeToken {
  for (const m of b.modes) {
    const parsed = ModeToken.safeParse(m);
    if (parsed.success) return parsed.data;
  }
  return "agg";
}

/** Every finished base rollout with a run id, per task and k. */
export function baseSubjects(records: StoredRecords): BaseSubject[] {
  return records.bases.flatMap((b) =>
    b.rollouts
      .filter((r) => r.runId !== "")
      .map(
        (r): BaseSubject => ({
          kind: "base",
          sweep: b.sweepId,
          domain: b.domain,
          task: b.task,
          mode: baseMode(b),
          k: b.k,
          label: r.label,
          runId: r.runId,
          runDir: r.runDir,
        }),
      ),
  );
}

/** Every subject key the judge or the report may look up for this sweep. */
export function judgmentKeys(records: StoredRecords): string[] {
  const keys: string[] = [];
  for (const p of pickSubjects(records)) {
    if (p.runId !== "") keys.push(judgmentSubject(p));
    keys.push(judgmentSubject({ ...p, runId: "" }));
  }
  for (const b of baseSubjects(records)) keys.push(judgmentSubject(b));
  return keys;
}

function judgmentOf(row: StoredJudgment): Judgment {
  return {
    graded: row.graded && row.score !== null,
    score: row.graded ? row.score : null,
    passed: row.passed,
    total: row.total,
    metric: row.metric,
    reason: row.reason,
    judge: row.judge,
  };
}

function pickKind(p: PickSubject): PickKind {
  if (p.fallback) return "fallback";
  if (!p.ok || p.modeFailed !== null) return "failed";
  return "selector";
}

/**
 * The report's cells. A pick the judge must refuse (fallback, failed selection or mode) is ungraded
 * with the judge's reason whatever the store holds; a judgeable pick takes its stored judgment (by
 * run id, else by its place when the judge could not reach the run), or none when not yet judged.
 */
export function reportCells(
  records: StoredRecords,
  judgments: ReadonlyMap<string, StoredJudgment>,
): { picks: PickCell[]; bases: BaseCell[] } {
  const picks: PickCell[] = [];
  for (const cell of records.cells) {
    const mode = modeOf(cell);
    if (mode === null) continue;
    const finished = cell.modeStatus !== null && FINISHED.has(cell.modeStatus);
    const subject = finished ? pickSubjectOf(cell, mode) : null;
    let pick: PickCell["pick"] = null;
    let judgment: Judgment | null = null;
    if (subject !== null) {
      const kind = pickKind(subject);
      pick = {
        kind: kind === "selector" && cell.selection?.trivial ? "trivial" : kind,
        label: subject.label,
      };
      const refusal = pickRefusal(subject);
      if (refusal !== null) {
        judgment = {
          graded: false,
          score: null,
          passed: null,
          total: null,
          metric: null,
          reason: refusal,
          judge: "",
        };
      } else {
        const row =
          judgments.get(judgmentSubject(subject)) ??
          judgments.get(judgmentSubject({ ...subject, runId: "" }));
        judgment = row ? judgmentOf(row) : null;
      }
    }
    picks.push({
      task: cell.task,
      domain: cell.domain,
      mode,
      k: cell.k,
      sweep: cell.sweepId,
      carried: cell.carried,
      pick,
      judgment,
      fellBack: cell.fellBack.length,
      similarity: cell.similarity,
      spend: { ...cell.improver, executor: cell.executor },
    });
  }
  const bases: BaseCell[] = records.bases.map((b) => ({
    task: b.task,
    k: b.k,
    runs: b.rollouts.map((r) => {
      const row = r.runId === "" ? undefined : judgments.get(r.runId);
      return { label: r.label, judgment: row ? judgmentOf(row) : null };
    }),
    executor: b.executor,
  }));
  return { picks, bases };
}
