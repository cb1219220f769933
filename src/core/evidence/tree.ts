// Builds the evidence tree an improver session reads — the only way evidence reaches a model
// (docs/method.md §3). Every byte comes from a named adapter hook or a method-owned folder, never
// from a scan of a run folder; nothing leaked is ever written, and a failed build leaves nothing
// behind.

import { lstatSync, mkdirSync, rmSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import type { SurfaceSpec } from "../harness/surface.ts";
import { writeTree } from "../harness/tree.ts";
import {
  copyTreeSafe,
  dirExists,
  isRegularFile,
  walkFiles,
  writeFileSafe,
} from "../lib/safe-fs.ts";
import { TreeWriter } from "../lib/tree-writer.ts";
import type { LibraryView } from "../library/values.ts";
import { assertNoLeakPaths, leakFilter } from "../safety/leak-globs.ts";
import { fireTripwire, type TripwireContext } from "../safety/tripwire.ts";
import { assertContextClean, assertNoSymlinks } from "../safety/tripwires.ts";
import type { RunView } from "../seams/benchmark.ts";
import { assertCopyable, type PoolEntry, readCheckedTree, writePool } from "./pool.ts";
import {
  type DeliverablesMode,
  type EvidenceAdapter,
  fileSafeName,
  NameAllocator,
  type RolloutEvidence,
  writeRollout,
} from "./rollout.ts";

export { BASE_BASELINE, type PoolBaseline, type PoolEntry } from "./pool.ts";

import { Harness2Error } from "../lib/errors.ts";
import { ContextTree } from "./context-tree.ts";
import { contextLayout } from "./layout.ts";

export type { EvidenceAdapter } from "./rollout.ts";

const SKIP_DIRS: ReadonlySet<string> = new Set(["__pycache__"]);

/** Rollouts were given but not one trajectory could be rendered: the improver would adapt on nothing. */
export class NoTrajectoryError extends Harness2Error {
  constructor(readonly failures: readonly string[]) {
    super(
      `no trajectory could be rendered for ANY rollout; the improver would be adapting on nothing` +
        (failures.length > 0 ? `: ${failures.slice(0, 4).join("; ")}` : ""),
    );
  }
}

/** The destination would delete an input when wiped. */
export class EvidenceDestinationError extends Harness2Error {
  constructor(
    readonly dest: string,
    readonly input: string,
  ) {
    super(`evidence destination ${dest} contains the input ${input}; wiping it would delete it`);
  }
}

export type BuildEvidenceOptions = TripwireContext & {
  /** The harness being edited; null or missing = none. */
  harnessDir?: string | null;
  /** The domain library's servable folder, served whole; null, missing or empty = none. */
  libraryDir?: string | null;
  /** A view of the domain library (Library.servedView), instead of `libraryDir`; null = none. */
  library?: LibraryView | null;
  pool?: readonly PoolEntry[];
  /** Stage label → its notes (or error), written to decisions/<label>.md. */
  decisions?: Readonly<Record<string, string>>;
  /** Per-observation clip; defaults to the adapter's spec. The whole trajectory is never clipped. */
  obsTrunc?: number;
  surface: SurfaceSpec;
  /** Answer-key globs; default the adapter's spec. */
  leakGlobs?: readonly string[];
  /** Default the adapter's spec. */
  proposerDeliverables?: DeliverablesMode;
};

/**
 * Copies the task's source folder (adapter `taskFiles`) to `root/source/`, dropping every file a
 * leak glob matches WHILE copying, so an answer key is never written; symlinks are skipped, never
 * followed. Then checks the copy (belt and braces). Returns what it copied and skipped.
 */
export async function copySource(
  adapter: Pick<EvidenceAdapter, "taskFiles">,
  taskId: string,
  root: string,
  leakGlobs: readonly string[],
  ctx: TripwireContext,
): Promise<{ files: number; skippedSymlinks: string[] }> {
  const src = adapter.taskFiles ? await adapter.taskFiles(taskId) : null;
  return copySourceDir(src, root, leakGlobs, ctx);
}

function copySourceDir(
  src: string | null,
  root: string,
  leakGlobs: readonly string[],
  ctx: TripwireContext,
): { files: number; skippedSymlinks: string[] } {
  if (src === null || !dirExists(src)) return { files: 0, skippedSymlinks: [] };
  const dst = join(root, "source");
  const copied = copyTreeSafe(src, dst, { filter: leakFilter(leakGlobs), skipDirs: SKIP_DIRS });
  if (copied.files > 0) assertNoLeakPaths(dst, leakGlobs, ctx);
  return { files: copied.files, skippedSymlinks: copied.skippedSymlinks };
}

function refuseWipingInputs(dest: string, inputs: readonly (string | null | undefined)[]): void {
  const d = resolve(dest);
  for (const input of inputs) {
    if (!input) continue;
    const rel = relative(d, resolve(input));
    const outside = isAbsolute(rel) || rel === ".." || rel.startsWith(`..${sep}`);
    if (!outside) {
      throw new EvidenceDestinationError(dest, input);
    }
  }
}

/**
 * Builds the evidence tree at `dest` in the documented order (docs/method.md §3): wipe; task.md;
 * source/; decisions/; rollouts/ + deliverables/; harness/; pool/; library/; the whole-tree
 * tripwires; the no-trajectory check. Any failure removes `dest` entirely and rethrows.
 */
export async function buildEvidenceTree(
  dest: string,
  adapter: EvidenceAdapter,
  taskId: string,
  rollouts: readonly RunView[],
  opts: BuildEvidenceOptions,
): Promise<ContextTree> {
  const leakGlobs = opts.leakGlobs ?? adapter.spec.leakGlobs;
  const obsTrunc = opts.obsTrunc ?? adapter.spec.obsTrunc;
  const mode = opts.proposerDeliverables ?? adapter.spec.proposerDeliverables;
  const pool = opts.pool ?? [];
  const library = libraryOf(opts);
  const sourceDir = adapter.taskFiles ? await adapter.taskFiles(taskId) : null;
  refuseWipingInputs(dest, [
    sourceDir,
    opts.harnessDir,
    library?.dir,
    ...pool.map((p) => p.harnessDir),
    ...pool.map((p) => p.baseline?.harnessDir),
    ...rollouts.map((r) => r.runDir),
    ...pool.map((p) => p.rollout?.runDir),
  ]);
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(dest, { recursive: true });
  // One writer for the whole build: each folder it makes is checked once (lib/tree-writer.ts).
  const out = new TreeWriter(dest);
  try {
    out.write("task.md", await adapter.taskPrompt(taskId));
    const source = copySourceDir(sourceDir, dest, leakGlobs, opts);

    const decisionNames = new NameAllocator();
    let decisions = 0;
    for (const [label, notes] of Object.entries(opts.decisions ?? {})) {
      const name = decisionNames.claim(fileSafeName(label));
      const body = notes.trim() === "" ? "No decision notes were returned.\n" : notes;
      out.write(`decisions/${name}.md`, body);
      decisions++;
    }

    const rolloutNames = new NameAllocator();
    const written: RolloutEvidence[] = [];
    for (const run of rollouts) {
      const name = rolloutNames.claim(fileSafeName(run.label));
      written.push(await writeRollout(out, name, run, adapter, { obsTrunc, mode }));
    }

    const current = readCheckedTree(opts.surface, opts.harnessDir ?? null, leakGlobs, opts);
    let harnessFiles = 0;
    if (current !== null) {
      // Only on-surface files (plus the README stubs) are served: anything else could not be
      // harvested back from the session anyway (docs/differences.md X12).
      writeTree(opts.surface, current, join(dest, "harness"));
      harnessFiles = new Set([...Object.keys(current), ...opts.surface.alwaysOn]).size;
    }

    const writtenPool = await writePool(out, pool, adapter, {
      surface: opts.surface,
      current,
      currentDir: opts.harnessDir ?? null,
      leakGlobs,
      obsTrunc,
      mode,
      ctx: opts,
    });

    const served = copyLibrary(library, dest, leakGlobs, opts);

    assertContextClean(dest, leakGlobs, opts);

    const failed = written.filter((r) => !r.rendered).map((r) => r.failure);
    if (rollouts.length > 0 && failed.length === rollouts.length)
      throw new NoTrajectoryError(failed);

    const fields = {
      root: dest,
      taskId,
      sourceFiles: source.files,
      skippedSymlinks: source.skippedSymlinks,
      decisions,
      rollouts: written.filter((r) => r.rendered).map((r) => r.name),
      failed,
      deliverablesMode: mode,
      deliverableDirs: written.filter((r) => r.deliverable === "dir").map((r) => r.name),
      deliverableTexts: written.filter((r) => r.deliverable === "file").map((r) => r.name),
      harnessFiles,
      pool: writtenPool.names,
      poolBaselines: writtenPool.baselines,
      library: served.files > 0,
      libraryIndex: served.index,
    };
    return ContextTree.parse({ ...fields, layout: contextLayout({ ...fields, current }) });
  } catch (err) {
    // Fix docs/differences.md E18: a tree that failed (a tripwire above all) never stays on disk.
    rmSync(dest, { recursive: true, force: true });
    throw err;
  }
}

/** The library to serve: a view as given, or `libraryDir` as a view of the whole folder. */
function libraryOf(opts: BuildEvidenceOptions): LibraryView | null {
  const dir = opts.libraryDir ?? null;
  const view = opts.library ?? null;
  if (dir !== null && view !== null) {
    throw new TypeError("buildEvidenceTree takes libraryDir or library, not both");
  }
  return view ?? (dir === null ? null : { dir, entries: null, index: null, omitted: 0 });
}

/**
 * Copies the library to `dest/library/`: the whole folder, or (for a capped view) only the served
 * entries' folders plus the view's INDEX.md. Only what is copied is checked and walked.
 */
function copyLibrary(
  view: LibraryView | null,
  dest: string,
  leakGlobs: readonly string[],
  ctx: TripwireContext,
): { files: number; index: boolean } {
  const none = { files: 0, index: false };
  if (view === null || !dirExists(view.dir)) return none;
  const target = join(dest, "library");
  if (view.entries === null || view.index === null) {
    if (walkFiles(view.dir, { skipDirs: SKIP_DIRS }).length === 0) return none;
    assertCopyable(view.dir, leakGlobs, ctx);
    const copied = copyTreeSafe(view.dir, target, { skipDirs: SKIP_DIRS });
    return { files: copied.files, index: isRegularFile(join(target, "INDEX.md")) };
  }
  const entries = servedEntries(view.dir, view.entries, leakGlobs, ctx);
  let files = 0;
  for (const rel of entries) {
    files += copyTreeSafe(join(view.dir, rel), join(target, rel), { skipDirs: SKIP_DIRS }).files;
  }
  if (files === 0) {
    rmSync(target, { recursive: true, force: true });
    return none;
  }
  writeFileSafe(target, "INDEX.md", view.index);
  return { files: files + 1, index: true };
}

/**
 * The served entries' folders (`harnesses/<name>`) that exist, after the pre-copy tripwires run
 * over them with paths relative to the library folder, as for a whole-folder copy. Entries left
 * out are neither walked nor checked.
 */
function servedEntries(
  dir: string,
  names: readonly string[],
  leakGlobs: readonly string[],
  ctx: TripwireContext,
): string[] {
  const entries: string[] = [];
  const files: string[] = [];
  for (const name of names) {
    const rel = `harnesses/${name}`;
    const st = lstatSync(join(dir, rel), { throwIfNoEntry: false });
    if (st?.isSymbolicLink()) {
      throw fireTripwire(
        ctx,
        { kind: "symlink", path: rel, marker: "" },
        `the library entry ${rel} in ${dir} is a symlink; a link can lead a session outside its evidence`,
      );
    }
    if (!st?.isDirectory()) continue; // removed since the view was made
    entries.push(rel);
    for (const f of assertNoSymlinks(join(dir, rel), ctx)) files.push(`${rel}/${f}`);
  }
  assertNoLeakPaths(dir, leakGlobs, ctx, files);
  return entries;
}
