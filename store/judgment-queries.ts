// The judge's reads of the store: the recorded judgments of given subjects, and which judges an
// experiment's sweeps were graded by (so a report never mixes two without saying so).

import type { Database } from "bun:sqlite";
import type { JudgmentRow } from "./report-queries.ts";
import { bool, num, parse, type Row, str, strOrNull, verdictOf } from "./rows.ts";

/** The stored judgments of the given subjects, each with the unit its recording event named. */
export function judgmentsFor(db: Database, subjects: readonly string[]): Map<string, JudgmentRow> {
  const out = new Map<string, JudgmentRow>();
  if (subjects.length === 0) return out;
  const list = JSON.stringify([...new Set(subjects)]);
  const rows = db
    .query("SELECT * FROM judgments WHERE subject IN (SELECT value FROM json_each(?))")
    .all(list) as Row[];
  for (const r of rows) {
    out.set(str(r.subject), {
      subject: str(r.subject),
      sweepId: str(r.sweep_id),
      task: str(r.task),
      mode: str(r.mode),
      k: num(r.k),
      ...verdictOf(r),
      metric: null,
      at: num(r.at),
    });
  }
  if (out.size === 0) return out;
  const sweeps = JSON.stringify([...new Set([...out.values()].map((j) => j.sweepId))]);
  const events = db
    .query(`SELECT body FROM events WHERE type = 'judgment.recorded'
      AND sweep_id IN (SELECT value FROM json_each(?)) ORDER BY seq`)
    .all(sweeps) as Row[];
  for (const e of events) {
    const body = parse<Record<string, unknown>>(e.body, {});
    const subject =
      str(body.runId) || `${str(body.sweep)}:${str(body.task)}:${str(body.mode)}:${num(body.k)}`;
    const row = out.get(subject);
    // The metric of the event the row reflects: a graded row is never replaced by an ungraded one.
    if (row && bool(body.graded) === row.graded) row.metric = strOrNull(body.metric);
  }
  return out;
}

export type ExperimentJudge = { judge: string; rows: number; sweeps: string[] };

/** Who judged the experiment (bench, substrate, tag) so far, most rows first. */
export function experimentJudges(
  db: Database,
  exp: { bench: string; substrate: string; tag: string },
): ExperimentJudge[] {
  const rows = db
    .query(`SELECT j.judge AS judge, COUNT(*) AS n, GROUP_CONCAT(DISTINCT j.sweep_id) AS sweeps
      FROM judgments j JOIN sweeps s ON s.id = j.sweep_id
      WHERE s.bench = ? AND s.substrate = ? AND s.tag = ?
      GROUP BY j.judge ORDER BY n DESC, j.judge`)
    .all(exp.bench, exp.substrate, exp.tag) as Row[];
  return rows.map((r) => ({
    judge: str(r.judge),
    rows: num(r.n),
    sweeps: str(r.sweeps).split(",").filter(Boolean).sort(),
  }));
}
