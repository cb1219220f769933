// Read queries the TUI browser needs beyond store/queries.ts: where a stage's evidence lives and
// when it ran, and whether a sweep has judgments (so the report tab is offered). Read-only SQL,
// one query per call; it never writes.

import type { Database } from "bun:sqlite";

export type StagePaths = {
  /** The evidence folder the stage's proposer read (from stage.started). */
  evidenceDir: string;
  /** The harness tree the stage produced (or fell back to). */
  harnessDir: string;
  startedAt: number | null;
  finishedAt: number | null;
};

/** A stage's folders and times, or null when the task record has no such stage. */
export function stagePaths(
  db: Database,
  taskId: string,
  mode: string,
  label: string,
): StagePaths | null {
  const row = db
    .query(
      `SELECT evidence_dir, harness_dir, started_at, finished_at FROM stages
       WHERE task_id = ? AND mode = ? AND label = ?`,
    )
    .get(taskId, mode, label) as Record<string, unknown> | null;
  if (!row) return null;
  const when = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    evidenceDir: String(row.evidence_dir ?? ""),
    harnessDir: String(row.harness_dir ?? ""),
    startedAt: when(row.started_at),
    finishedAt: when(row.finished_at),
  };
}

/** Whether any judgment was recorded for this sweep or for one of its task records. */
export function sweepHasJudgments(db: Database, sweepId: string): boolean {
  const row = db
    .query(
      `SELECT EXISTS (
         SELECT 1 FROM judgments WHERE sweep_id = ?1
         UNION ALL
         SELECT 1 FROM judgments j JOIN tasks t ON t.id = j.task_id WHERE t.sweep_id = ?1
       ) AS yes`,
    )
    .get(sweepId) as { yes: number } | null;
  return row?.yes === 1;
}
