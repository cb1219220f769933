// Forgetting sweeps (`harness2 runs --delete RUN` / `--prune`): a sweep's rows leave the store in
// one transaction — tasks and everything under them by the schema's cascades, its events and
// locks by hand — while the files it wrote stay where they are. A sweep a live process holds is
// never forgotten. Which sweeps recorded no work of their own (every task skipped, or none at
// all: a rerun that found everything done) is the prune's question.

import type { Database } from "bun:sqlite";
import { Harness2Error } from "../src/core/lib/errors.ts";
import { liveSweepIds } from "./lock.ts";

/** Sweeps whose every task was skipped (or that recorded no task), not held by a live process. */
export function idleSweepIds(db: Database): string[] {
  const live = liveSweepIds(db);
  const rows = db
    .query(
      `SELECT s.id FROM sweeps s
       WHERE NOT EXISTS (SELECT 1 FROM tasks t WHERE t.sweep_id = s.id AND t.status != 'skipped')
       ORDER BY s.started_at, s.id`,
    )
    .all() as { id: string }[];
  return rows.map((r) => r.id).filter((id) => !live.has(id));
}

/** How many of the sweep's tasks hold results of their own (not skipped). */
export function ownTaskCount(db: Database, sweepId: string): number {
  const row = db
    .query("SELECT COUNT(*) AS n FROM tasks WHERE sweep_id = ? AND status != 'skipped'")
    .get(sweepId) as { n: number };
  return row.n;
}

export class SweepLiveError extends Harness2Error {
  constructor(readonly sweepId: string) {
    super(`sweep ${sweepId} is running in a live process; stop it first (q or Ctrl-C there)`);
  }
}

/** Removes the sweeps' rows; throws SweepLiveError (removing nothing) if one is live. */
export function forgetSweeps(db: Database, ids: readonly string[]): void {
  const live = liveSweepIds(db);
  const held = ids.find((id) => live.has(id));
  if (held !== undefined) throw new SweepLiveError(held);
  db.transaction(() => {
    for (const id of ids) {
      db.query("DELETE FROM events WHERE sweep_id = ?").run(id);
      db.query("DELETE FROM locks WHERE sweep_id = ?").run(id);
      db.query("DELETE FROM sweeps WHERE id = ?").run(id);
    }
  })();
}
