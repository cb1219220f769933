// The candidate pool of an evidence tree: pool/<label>/{harness/, harness.diff, rollout.md,
// produced.md}. Harnesses are read and written as trees (on-surface files only); runs are read
// only through adapter hooks. A candidate folder holding a leak or a symlink trips before any copy.

import type { EvidenceAdapter } from "./evidence-rollout.ts";
import {
  type DeliverablesMode,
  deliverableAsText,
  fileSafeName,
  listingDocument,
  NameAllocator,
  trajectoryText,
} from "./evidence-rollout.ts";
import { dirExists, writeFileSafe } from "./safe-fs.ts";
import type { RunView } from "./spec.ts";
import type { SurfaceSpec, Tree } from "./surface-spec.ts";
import { readTree, writeTree } from "./tree.ts";
import { assertNoLeakPaths, assertNoSymlinks, type TripwireContext } from "./tripwires.ts";
import { treeDiff } from "./unified-diff.ts";

/** One candidate: its harness folder (null when it has none) and its rollout (null when none ran). */
export type PoolEntry = {
  label: string;
  harnessDir: string | null;
  rollout: RunView | null;
};

/**
 * Refuses a folder about to be copied into model context when it holds a symlink or a leak-glob
 * path — before anything is written (fix of spec/02 §4.18), so a leaked file never lands.
 */
export function assertCopyable(
  dir: string,
  leakGlobs: readonly string[],
  ctx: TripwireContext,
): void {
  assertNoLeakPaths(dir, leakGlobs, ctx, assertNoSymlinks(dir, ctx));
}

/** Reads a harness folder as a tree after the pre-copy tripwires; a missing folder gives null. */
export function readCheckedTree(
  surface: SurfaceSpec,
  dir: string | null,
  leakGlobs: readonly string[],
  ctx: TripwireContext,
): Tree | null {
  if (dir === null || !dirExists(dir)) return null;
  assertCopyable(dir, leakGlobs, ctx);
  return readTree(surface, dir);
}

const EMPTY_BASELINE_NOTE =
  "# No harness was being edited at this point, so this diff is against an EMPTY harness:\n" +
  "# every file of the candidate shows as added.\n";

export type PoolOptions = {
  surface: SurfaceSpec;
  /** The tree under context/harness/, or null when no harness is being edited. */
  current: Tree | null;
  leakGlobs: readonly string[];
  obsTrunc: number;
  mode: DeliverablesMode;
  ctx: TripwireContext;
};

/** Writes pool/ under `root`; returns the folder names written, in pool order. */
export async function writePool(
  root: string,
  pool: readonly PoolEntry[],
  adapter: EvidenceAdapter,
  opts: PoolOptions,
): Promise<string[]> {
  const names = new NameAllocator();
  const written: string[] = [];
  for (const entry of pool) {
    const name = names.claim(fileSafeName(entry.label));
    const dir = `pool/${name}`;
    const tree = readCheckedTree(opts.surface, entry.harnessDir, opts.leakGlobs, opts.ctx);
    if (tree !== null) {
      writeTree(opts.surface, tree, `${root}/${dir}/harness`);
      // Fix of spec/02 §4.22: without a harness under edit the baseline is empty, and it says so.
      const diff =
        opts.current === null
          ? `${EMPTY_BASELINE_NOTE}${treeDiff({}, tree, "empty", name)}`
          : treeDiff(opts.current, tree, "current", name);
      writeFileSafe(root, `${dir}/harness.diff`, diff);
    }
    if (entry.rollout !== null) {
      const run = entry.rollout;
      // Fix of spec/02 §4.13: each file carries its own failure; a deliverable failure never
      // overwrites a good rollout.md.
      const traj = await trajectoryText(adapter, run.runDir, opts.obsTrunc);
      writeFileSafe(root, `${dir}/rollout.md`, traj.text);
      const produced =
        opts.mode === "names"
          ? await listingDocument(entry.label, run.runDir, adapter)
          : await deliverableAsText(adapter, run.runDir, "(nothing produced)");
      writeFileSafe(root, `${dir}/produced.md`, produced);
    }
    if (tree === null && entry.rollout === null) {
      writeFileSafe(root, `${dir}/README.md`, "(this candidate has neither a harness nor a run)\n");
    }
    written.push(name);
  }
  return written;
}
