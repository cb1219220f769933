// What the browser reads, behind one small interface: the store's read queries, plus what only
// the CLI can compute (a stage's harness diff, the judged report as text). The browser never
// writes, never scores, and reads nothing the store and these callbacks do not give it.

import type { Database } from "bun:sqlite";
import { type StagePaths, stagePaths, sweepHasJudgments } from "../../store/browse-queries.ts";
import { sweepDetail } from "../../store/queries.ts";
import { listSweeps } from "../../store/sweep-list.ts";
import type { SweepDetail, SweepSummary } from "../../store/views.ts";
import type { RolloutText } from "./rollout-screen.ts";

export interface BrowseSource {
  /** Where the store is, for the title line. */
  readonly location: string;
  sweeps(): SweepSummary[];
  sweep(id: string): SweepDetail | null;
  stagePaths(taskId: string, mode: string, label: string): StagePaths | null;
  hasJudgments(sweepId: string): boolean;
  /** The unified diff of a harness tree against another, or null when it cannot be made (a folder is not there). */
  harnessDiff?(parentDir: string, harnessDir: string): string | null;
  /** The judged report of a sweep, drawn for `columns` columns, or null when there is none. */
  reportText?(sweepId: string, opts: { columns: number; color: boolean }): string | null;
  /** A rollout's output files and trajectory, or null when its run folder is not there. */
  rolloutText?(runDir: string): Promise<RolloutText | null>;
  /**
   * Hands the terminal to the user's pager (`text`) or editor (`path`) until it exits; returns a
   * one-line problem, or null. The browser releases the terminal around the call.
   */
  openExternal?(what: { pager: string } | { editor: string }): string | null;
}

export type StoreSourceExtras = Pick<
  BrowseSource,
  "harnessDiff" | "reportText" | "rolloutText" | "openExternal"
>;

/** A BrowseSource over an open store (read-only use). */
export function storeSource(
  db: Database,
  location: string,
  extras: StoreSourceExtras = {},
): BrowseSource {
  return {
    location,
    sweeps: () => listSweeps(db, { limit: 500 }),
    sweep: (id) => sweepDetail(db, id),
    stagePaths: (taskId, mode, label) => stagePaths(db, taskId, mode, label),
    hasJudgments: (id) => sweepHasJudgments(db, id),
    ...extras,
  };
}
