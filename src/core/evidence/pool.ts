// The candidate pool of an evidence tree: pool/<label>/{harness/, harness.diff, rollout.md,
// produced.md}. Harnesses are read and written as trees (on-surface files only); runs are read
// only through adapter hooks. A candidate folder holding a leak or a symlink trips before any copy.

import { resolve } from "node:path";
import { treeDiff } from "../harness/diff.ts";
import type { SurfaceSpec, Tree } from "../harness/surface.ts";
import { readTree, writeTree } from "../harness/tree.ts";
import { Harness2Error } from "../lib/errors.ts";
import { dirExists } from "../lib/safe-fs.ts";
import type { TreeWriter } from "../lib/tree-writer.ts";
import { assertNoLeakPaths } from "../safety/leak-globs.ts";
import type { TripwireContext } from "../safety/tripwire.ts";
import { assertNoSymlinks } from "../safety/tripwires.ts";
import type { RunView } from "../seams/benchmark.ts";
import type { EvidenceAdapter } from "./rollout.ts";
import {
  type DeliverablesMode,
  deliverableAsText,
  fileSafeName,
  listingDocument,
  NameAllocator,
  trajectoryText,
} from "./rollout.ts";

/**
 * The harness a candidate was edited from: `label` names it in the diff header, `harnessDir`
 * holds it. In sequential mode that is the base for round 1 and checkpoint c(j−1) for round j.
 */
export type PoolBaseline = { label: string; harnessDir: string };

/** The label of the harness a task starts from, as a baseline and as `harnesses/base`. */
export const BASE_BASELINE = "base";

/** One candidate: its harness folder (null when it has none) and its rollout (null when none ran). */
export type PoolEntry = {
  label: string;
  harnessDir: string | null;
  rollout: RunView | null;
  /**
   * Fix docs/differences.md R25: the tree this candidate was proposed from, which its harness.diff
   * is against. Absent, or the same folder as the harness under edit: the diff is against
   * `context/harness/` and its header says `current` (reflection relies on that, then rewrites
   * the diffs against the base itself).
   */
  baseline?: PoolBaseline;
};

/**
 * Refuses a folder about to be copied into model context when it holds a symlink or a leak-glob
 * path — before anything is written (fix docs/differences.md E18), so a leaked file never lands.
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
  /** The folder `current` was read from (null when none): a baseline in it is `current`. */
  currentDir: string | null;
  leakGlobs: readonly string[];
  obsTrunc: number;
  mode: DeliverablesMode;
  ctx: TripwireContext;
};

/** A candidate's baseline was named but its folder is gone: its diff would be against nothing. */
export class MissingBaselineError extends Harness2Error {
  constructor(
    readonly label: string,
    readonly baseline: PoolBaseline,
  ) {
    super(
      `the pool candidate ${label} was edited from ${baseline.label}, but ${baseline.harnessDir} ` +
        "does not exist; its harness must stay on disk while later stages read the pool",
    );
  }
}

/** What writePool wrote: folder names in pool order, and the baselines named other than `current`. */
export type WrittenPool = { names: string[]; baselines: string[] };

/**
 * The harness trees writePool has read, by the pool entry or baseline they were read for: each is
 * read (and checked before its first copy) once, however many builds show it. A candidate's
 * harness never changes once its pool entry exists — the same trust that lets its files be
 * hard-linked into every pool (docs/architecture.md "Evidence written once").
 */
const TREES = new WeakMap<PoolEntry | PoolBaseline, Tree | null>();

/** readCheckedTree of `owner`'s harness folder, once per owner. */
function treeOf(owner: PoolEntry | PoolBaseline, opts: PoolOptions): Tree | null {
  if (TREES.has(owner)) return TREES.get(owner) as Tree | null;
  const tree = readCheckedTree(opts.surface, owner.harnessDir, opts.leakGlobs, opts.ctx);
  TREES.set(owner, tree);
  return tree;
}

/** Reads each named baseline once (checked like any tree copied into context). */
class Baselines {
  readonly named: string[] = [];

  constructor(private readonly opts: PoolOptions) {}

  /** The tree an entry is diffed against and its header name; null tree = no harness at all. */
  of(entry: PoolEntry): { tree: Tree | null; name: string } {
    const b = entry.baseline;
    const cur = this.opts.currentDir;
    if (b === undefined || (cur !== null && resolve(b.harnessDir) === resolve(cur))) {
      return { tree: this.opts.current, name: "current" };
    }
    const tree = treeOf(b, this.opts);
    if (tree === null) throw new MissingBaselineError(entry.label, b);
    if (!this.named.includes(b.label)) this.named.push(b.label);
    return { tree, name: b.label };
  }
}

/** Writes pool/ through `out`; returns the folder names written, in pool order. */
export async function writePool(
  out: TreeWriter,
  pool: readonly PoolEntry[],
  adapter: EvidenceAdapter,
  opts: PoolOptions,
): Promise<WrittenPool> {
  const names = new NameAllocator();
  const baselines = new Baselines(opts);
  const written: string[] = [];
  for (const entry of pool) {
    const name = names.claim(fileSafeName(entry.label));
    const dir = `pool/${name}`;
    const tree = treeOf(entry, opts);
    if (tree !== null) {
      // Candidate harnesses never change once written: shared by hard link, not copied.
      writeTree(opts.surface, tree, `${out.root}/${dir}/harness`, {
        linkFrom: entry.harnessDir as string,
      });
      const from = baselines.of(entry);
      // Fix docs/differences.md E22: without a harness under edit the baseline is empty, and it
      // says so.
      const diff =
        from.tree === null
          ? `${EMPTY_BASELINE_NOTE}${treeDiff({}, tree, "empty", name)}`
          : treeDiff(from.tree, tree, from.name, name);
      out.write(`${dir}/harness.diff`, diff);
    }
    if (entry.rollout !== null) {
      const run = entry.rollout;
      // Fix docs/differences.md E13: each file carries its own failure; a deliverable failure never
      // overwrites a good rollout.md.
      const traj = await trajectoryText(adapter, run, opts.obsTrunc);
      out.write(`${dir}/rollout.md`, traj.text);
      const produced =
        opts.mode === "names"
          ? await listingDocument(entry.label, run, adapter)
          : await deliverableAsText(adapter, run, "(nothing produced)");
      out.write(`${dir}/produced.md`, produced);
    }
    if (tree === null && entry.rollout === null) {
      out.write(`${dir}/README.md`, "(this candidate has neither a harness nor a run)\n");
    }
    written.push(name);
  }
  return { names: written, baselines: baselines.named };
}
