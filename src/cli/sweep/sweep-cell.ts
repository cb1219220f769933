// One sweep cell — which benchmark, on which executor, at which k, in which modes, with which seed
// and tag — built once by the command and the one source of what is derived from it: each mode's
// namespace, the namespaces a sweep locks, and the library root (docs/method.md §10). `run`, the
// demo, the plan `--dry-run` prints and the sweep session all derive them here.

import type { ModeToken } from "../../core/events/registry.ts";
import { libraryRootFor } from "../../core/library/values.ts";
import { ns } from "../../core/run/naming.ts";

export type SweepCell = {
  benchmark: string;
  substrate: string;
  k: number;
  modes: readonly ModeToken[];
  seed: number | null;
  tag: string;
};

/** Each requested mode's namespace, in the order the modes were asked for. */
export function modeNamespaces(cell: SweepCell): string[] {
  return cell.modes.map((mode) => ns({ ...cell, mode }));
}

/**
 * The namespaces a sweep locks: its modes' namespaces plus, always, the parallel one (first).
 * Every mode's base rollouts (run ids) and each task's summary.json live under the parallel
 * namespace, so a sequential-only sweep writes there too; locking only the requested modes let a
 * parallel-only sweep with the same settings run the same base run folders at the same time,
 * each wiping the other's (fix docs/differences.md R22).
 */
export function lockNamespaces(cell: SweepCell): string[] {
  return [...new Set<ModeToken>(["agg", ...cell.modes])].map((mode) => ns({ ...cell, mode }));
}

/** The library root of the cell under a benchmark's folder: `<root>/library/<bench>/k<k>-<sub>…`. */
export function cellLibraryRoot(cell: SweepCell, benchRoot: string): string {
  return libraryRootFor({ runsRoot: benchRoot, bench: cell.benchmark, ...cell });
}
