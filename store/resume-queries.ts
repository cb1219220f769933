// The store side of resume: a task's record rebuilt from store rows (modes, stages, ledger
// entries, selections with their adoption facts, base rollouts). The facts themselves are written
// by the event applier from `adoption.recorded`. A fixed number of queries per call; never reads
// files; never writes.

import type { Database } from "bun:sqlite";
import { expectedRollouts, expectedSessions } from "../src/core/events/budget.ts";
import type { ModeToken } from "../src/core/events/registry.ts";
import { sumUsd } from "../src/core/lib/money.ts";
import type { Experience } from "../src/core/library/values.ts";
import type { ModeEntry, StageRecord } from "../src/core/recursion/records.ts";
import type { BaseRecord, SelectionRecord, TaskSummary } from "../src/core/resume/summary.ts";
import type { NamespaceKey } from "./queries.ts";
import { bool, num, parse, type Row, str, strOrNull } from "./rows.ts";

/** A task's record as the store holds it: a summary without its status (the caller computes it). */
export type StoredTaskRecord = Omit<TaskSummary, "status">;

/** The finals of a mode: its AGG (parallel) or COMPOSE (sequential) stages, in order. */
const FINAL_DIMS = new Set(["AGG", "COMPOSE"]);

function stageOf(r: Row): StageRecord {
  return {
    label: str(r.label),
    dim: str(r.dim) as StageRecord["dim"],
    keptBase: bool(r.kept_base),
    fellBack: bool(r.fell_back),
    error: str(r.error),
    usd: num(r.usd),
    attempts: num(r.attempts),
    cached: bool(r.cached),
    notes: str(r.notes),
    // Not kept by the store; resume never reads it.
    autotriggered: [],
  };
}

function modeEntryOf(task: string, k: number, m: Row, stages: Row[], ledger: Row[]): ModeEntry {
  const mode = str(m.mode) as ModeToken;
  const status = str(m.status);
  if (status === "failed") {
    return { mode, ok: false, status: "failed", error: str(m.error), traceback: "" };
  }
  const finished = stages.filter((s) => bool(s.finished)).map(stageOf);
  const rollouts = ledger.filter((e) => e.kind === "rollout");
  const sessions = ledger.filter((e) => e.kind === "session");
  const sum = (rows: Row[]) => sumUsd(rows.map((e) => num(e.usd)));
  return {
    mode,
    taskId: task,
    k,
    status: status as "ok" | "degraded",
    ok: status === "ok",
    finals: finished.filter((s) => FINAL_DIMS.has(s.dim)).map((s) => s.label),
    fellBack: parse<string[]>(m.fell_back, []),
    keptBase: parse<string[]>(m.kept_base, []),
    stages: finished,
    similarity: parse(m.similarity, null),
    ledger: {
      mode,
      taskId: task,
      k,
      // Counted from the ledger entries themselves, not from the mode's reported totals.
      R: rollouts.length,
      expectedR: m.expected_r === null ? expectedRollouts(k) : num(m.expected_r),
      P: sessions.length,
      expectedP: m.expected_p === null ? expectedSessions(k) : num(m.expected_p),
      sessionAttempts: sessions.reduce((s, e) => s + num(e.attempts), 0),
      usd: sum(ledger),
      rolloutUsd: sum(rollouts),
      sessionUsd: sum(sessions),
      rollouts: rollouts.map((e) => str(e.label)),
      sessions: sessions.map((e) => str(e.label)),
    },
    errors: [],
    error: "",
    traceback: "",
  };
}

function selectionOf(task: string, k: number, mode: ModeToken, r: Row): SelectionRecord {
  const idMap = parse<Record<string, string>>(r.id_map, {});
  const chosenLabel = str(r.chosen_label);
  return {
    taskId: task,
    mode,
    k,
    chosenId: str(r.anon_id),
    chosenLabel,
    chosenRunId: str(r.chosen_run_id),
    chosenIsBase: chosenLabel.startsWith("base"),
    why: str(r.why),
    idMap,
    dropped: parse<string[]>(r.dropped, []),
    nCandidates: Object.keys(idMap).length,
    ok: bool(r.ok),
    fallback: bool(r.fallback),
    error: str(r.error),
    usd: num(r.usd),
    experience: parse<Experience | null>(r.experience, null),
    trivial: bool(r.trivial),
    evidence: str(r.evidence) === "trajectory" ? "trajectory" : "deliverable",
    chosenRunDir: str(r.chosen_run_dir),
    chosenTreeIsBase: bool(r.chosen_tree_is_base),
    harnessFingerprint: strOrNull(r.harness_fingerprint),
    outputDigest: strOrNull(r.output_digest),
  };
}

/**
 * The record resume decides from, or null when the store has no finished mode of this task.
 * Per mode it takes the newest FINISHED mode row in any sweep of the namespace (a task record
 * that was interrupted after that mode finished counts: the mode was checkpointed). A mode whose
 * selection never received its adoption facts has no selection in the record, so it re-runs.
 * Errors are the finished modes' own error lines (what made the task partial).
 */
export function storedTaskRecord(
  db: Database,
  scope: NamespaceKey,
  task: string,
  k: number,
): StoredTaskRecord | null {
  const modeRows = db
    .query(
      `SELECT m.*, t.domain AS t_domain, s.seed AS s_seed
       FROM modes m JOIN tasks t ON t.id = m.task_id JOIN sweeps s ON s.id = t.sweep_id
       WHERE s.bench = ? AND s.substrate = ? AND s.seed IS ? AND s.tag = ?
         AND t.task = ? AND t.k = ? AND m.finished_at IS NOT NULL
       ORDER BY m.finished_at DESC, t.started_at DESC, t.id DESC`,
    )
    .all(scope.bench, scope.substrate, scope.seed, scope.tag, task, k) as Row[];
  const newest = new Map<ModeToken, Row>();
  for (const r of modeRows) {
    const mode = str(r.mode) as ModeToken;
    if (!newest.has(mode)) newest.set(mode, r);
  }
  if (newest.size === 0) return null;

  const stagesQ = db.query("SELECT * FROM stages WHERE task_id = ? AND mode = ? ORDER BY rowid");
  const ledgerQ = db.query(
    "SELECT kind, label, usd, attempts FROM ledger_entries WHERE task_id = ? AND mode = ? ORDER BY seq",
  );
  const selectionQ = db.query("SELECT * FROM selections WHERE task_id = ? AND mode = ?");
  const modes: StoredTaskRecord["modes"] = {};
  const selections: StoredTaskRecord["selections"] = {};
  const errors: string[] = [];
  for (const [mode, m] of newest) {
    const id = str(m.task_id);
    modes[mode] = modeEntryOf(
      task,
      k,
      m,
      stagesQ.all(id, mode) as Row[],
      ledgerQ.all(id, mode) as Row[],
    );
    const sel = selectionQ.get(id, mode) as Row | null;
    if (sel !== null && sel.adopted_at !== null) selections[mode] = selectionOf(task, k, mode, sel);
    const error = str(m.error);
    if (error !== "") errors.push(error.startsWith(`${mode}:`) ? error : `${mode}: ${error}`);
  }

  const latest = modeRows[0] as Row;
  const base: BaseRecord[] = (
    db
      .query(
        `SELECT label, run_id, run_dir FROM rollouts
         WHERE task_id = ? AND label GLOB 'base[0-9]*' ORDER BY rowid`,
      )
      .all(str(latest.task_id)) as Row[]
  ).map((r) => ({ label: str(r.label), runId: str(r.run_id), runDir: str(r.run_dir) }));
  return {
    taskId: task,
    domain: str(latest.t_domain),
    k,
    seed: latest.s_seed === null ? null : num(latest.s_seed),
    base,
    modes,
    selections,
    errors,
  };
}
