// What `harness2 harness export` takes home: the newest library entry of a domain and mode (or
// of one named task), with the sweep it came from and the mode folder that recorded it.
// Read-only SQL.

import type { Database } from "bun:sqlite";
import { num, type Row, str } from "./rows.ts";

export type AdoptedEntry = {
  sweep: string;
  bench: string;
  substrate: string;
  domain: string;
  task: string;
  k: number;
  mode: "agg" | "seq";
  /** The library entry folder: `harness/` and `EXPERIENCE.md`. */
  path: string;
  cue: string;
  /** The mode's folder for that task (its `context/`, `harnesses/`, `reflection/`), or "". */
  modeDir: string;
};

export function latestAdoptedEntry(
  db: Database,
  q: { domain: string; mode: "agg" | "seq"; task?: string },
): AdoptedEntry | null {
  const row = db
    .query(
      `SELECT l.path, l.cue, l.mode, t.id AS task_id, t.task, t.k, t.domain,
              s.id AS sweep, s.bench, s.substrate,
              (SELECT st.evidence_dir FROM stages st
                WHERE st.task_id = t.id AND st.mode = l.mode AND st.evidence_dir != ''
                LIMIT 1) AS evidence_dir
       FROM library_entries l JOIN tasks t ON t.id = l.task_id JOIN sweeps s ON s.id = t.sweep_id
       WHERE t.domain = ? AND l.mode = ? AND (? IS NULL OR t.task = ?)
       ORDER BY l.at DESC, l.id DESC LIMIT 1`,
    )
    .get(q.domain, q.mode, q.task ?? null, q.task ?? null) as Row | null;
  if (row === null) return null;
  const evidence = str(row.evidence_dir);
  return {
    sweep: str(row.sweep),
    bench: str(row.bench),
    substrate: str(row.substrate),
    domain: str(row.domain),
    task: str(row.task),
    k: num(row.k),
    mode: str(row.mode) as "agg" | "seq",
    path: str(row.path),
    cue: str(row.cue),
    // evidence_dir = <mode folder>/context/<stage>
    modeDir: evidence === "" ? "" : evidence.replace(/\/context\/[^/]+\/?$/, ""),
  };
}

/** The domains that have library entries in this store, for the "no such domain" message. */
export function domainsWithEntries(db: Database): string[] {
  const rows = db
    .query(
      `SELECT DISTINCT t.domain FROM library_entries l JOIN tasks t ON t.id = l.task_id
       ORDER BY t.domain`,
    )
    .all() as Row[];
  return rows.map((r) => str(r.domain));
}
