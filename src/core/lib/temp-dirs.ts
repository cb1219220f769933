// Throwaway folders of a harness2 process: temp folders named by the process that made them (so
// the next process deletes what a killed one left), and trees removed in the background after
// being moved out of every caller's way. Split from safe-fs.ts, which they build on.

import { lstatSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pidAlive } from "./pid.ts";
import { lstatOrNull } from "./safe-fs.ts";

let parked = 0;
/** Trees moved aside whose background deletion has not finished yet. */
const pendingRemovals = new Set<string>();

/**
 * Removes a throwaway tree (a finished session workspace) without waiting for the disk, where
 * deleting directories can cost milliseconds each: the tree is renamed into the OS temp directory
 * at once, so `path` is gone when this returns, and deleted there in the background (a pending
 * deletion keeps the process alive until it is done; the promise says when, and an explicit
 * process.exit() finishes what is left synchronously). Removes it synchronously when it cannot be
 * moved (e.g. another device). A missing `path` is a no-op.
 */
export function removeTreeSoon(path: string): Promise<void> {
  if (parked === 0) removeOrphanedTrees();
  const aside = join(tmpdir(), `harness2-removing-${process.pid}-${++parked}-${basename(path)}`);
  try {
    renameSync(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") {
      rmSync(path, { recursive: true, force: true });
    }
    return Promise.resolve();
  }
  if (pendingRemovals.size === 0) process.once("exit", finishRemovals);
  pendingRemovals.add(aside);
  // Out of every caller's way already: a failure here can only leave litter in the temp dir.
  return rm(aside, { recursive: true, force: true })
    .catch(() => {})
    .finally(() => {
      pendingRemovals.delete(aside);
      if (pendingRemovals.size === 0) process.off("exit", finishRemovals);
    });
}

/**
 * Moves the throwaway tree `src` to `dest` (which must not exist) in one rename, when a copy made
 * by copyTreeSafe with `skipDirs` would hold exactly the same: only directories and regular files
 * with no other name, no symlink, nothing in `skipDirs`. False, with nothing moved, when the tree
 * is not that plain or the rename fails (another filesystem): the caller copies instead. Only for
 * a tree no process can still be writing (an in-process session's folder).
 */
export function movePlainTree(src: string, dest: string, skipDirs: ReadonlySet<string>): boolean {
  if (!isPlainTree(src, skipDirs)) return false;
  try {
    renameSync(src, dest);
    return true;
  } catch {
    return false;
  }
}

function isPlainTree(dir: string, skipDirs: ReadonlySet<string>): boolean {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      if (skipDirs.has(e.name) || !isPlainTree(path, skipDirs)) return false;
    } else if (!e.isFile() || lstatSync(path).nlink !== 1) return false;
  }
  return true;
}

/** The kinds of temporary folder a harness2 process makes in the temp dir, each named by its pid. */
const OWNED_TEMP = /^harness2-(?:removing|prop|harvest|check|store|export)-(\d+)-/;

/**
 * A fresh temporary folder `harness2-<kind>-<pid>-` plus a random suffix, under `parent` (default:
 * the temp dir).
 * Named by this process, so when it dies before removing it (SIGKILL, the OOM killer) the next
 * harness2 process deletes it.
 */
export function ownedTempDir(
  kind: "prop" | "harvest" | "check" | "store" | "export",
  parent = tmpdir(),
): string {
  return mkdtempSync(join(parent, `harness2-${kind}-${process.pid}-`));
}

/**
 * Deletes, in the background, folders left in the temp dir by harness2 processes that no longer
 * exist: trees parked for deletion and session workspaces (a process killed with SIGKILL never
 * finishes). A folder whose process is alive, or whose pid cannot be probed, is left alone.
 */
function removeOrphanedTrees(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(OWNED_TEMP.exec(name)?.[1] ?? Number.NaN);
    if (!Number.isInteger(pid) || pid === process.pid || pidAlive(pid)) continue;
    void rm(join(tmpdir(), name), { recursive: true, force: true }).catch(() => {});
  }
}

/** How often the exit hook re-deletes a tree the background deletion is still racing it on. */
const EXIT_REMOVAL_ATTEMPTS = 50;

function finishRemovals(): void {
  for (const aside of pendingRemovals) {
    // The background deletion still runs on the thread pool while this hook runs, and a recursive
    // rmSync racing it can return without error yet leave entries behind (measured under load:
    // one pass in five); so delete until the tree is really gone.
    for (let i = 0; i < EXIT_REMOVAL_ATTEMPTS && lstatOrNull(aside) !== null; i++) {
      try {
        rmSync(aside, { recursive: true, force: true });
      } catch {
        // Entries vanishing under us; the next pass sees what is left.
      }
    }
  }
}
