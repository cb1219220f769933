// The selection pool: exactly a mode's k finals (never a base, so the selector cannot abstain),
// their labels, and the natural label order (agg2 before agg10).

import type { ModeToken } from "../events/registry.ts";
import { Harness2Error } from "../lib/errors.ts";
import type { RunView } from "../seams/benchmark.ts";

/** Misuse of the selection API by the caller (not a selector outcome). */
export class SelectionInputError extends Harness2Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}
/** The only pool this release builds: the k finals of the mode. */
export const POOL_POLICY = "finals";

/** `agg1..aggk` for the parallel mode, `c1..ck` for the sequential one. */
export function finalLabels(mode: ModeToken, k: number): string[] {
  const prefix = mode === "agg" ? "agg" : "c";
  return Array.from({ length: k }, (_, i) => `${prefix}${i + 1}`);
}

/**
 * The selection pool: exactly the mode's finals that exist in `rollouts`, in label order (missing
 * ones are left out). Bases are never candidates, so the selector cannot abstain by picking one;
 * `base` is taken only to refuse a final that is really a base rollout under another label.
 */
export function selectionPool(
  mode: ModeToken,
  k: number,
  rollouts: ReadonlyMap<string, RunView>,
  base: readonly RunView[],
): RunView[] {
  const baseRuns = new Set(base.map((b) => b.runId));
  const pool: RunView[] = [];
  for (const label of finalLabels(mode, k)) {
    const run = rollouts.get(label);
    if (run === undefined) continue;
    if (run.label !== label) {
      throw new SelectionInputError(
        "rollouts",
        `rollout under '${label}' is labelled '${run.label}'`,
      );
    }
    if (baseRuns.has(run.runId)) {
      throw new SelectionInputError(
        "rollouts",
        `final '${label}' is the base rollout ${run.runId}`,
      );
    }
    pool.push(run);
  }
  return pool;
}

/** `agg2` before `agg10`: prefix by code point, then the number. */
export function compareLabels(a: string, b: string): number {
  const ma = /^(.*?)(\d*)$/.exec(a) as RegExpExecArray;
  const mb = /^(.*?)(\d*)$/.exec(b) as RegExpExecArray;
  const pa = ma[1] as string;
  const pb = mb[1] as string;
  if (pa !== pb) return pa < pb ? -1 : 1;
  return Number(ma[2] || -1) - Number(mb[2] || -1) || (a < b ? -1 : a > b ? 1 : 0);
}
