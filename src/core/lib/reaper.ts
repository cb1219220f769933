// The reaper: one small helper process per harness2 process that kills its children when harness2
// dies in a way no exit hook survives (SIGKILL, the OOM killer). Every child is started with
// HARNESS2_OWNER_PID in its environment (its own children inherit it), and harness2 keeps the list
// of its live process groups in a file, written at every start and end. The reaper checks every
// 300 ms whether harness2 is still there; once it is not, it sends SIGTERM to the listed groups and
// to every process carrying the owner's pid (and their groups), then SIGKILL, and exits.

import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The variable every child is started with: the pid of the harness2 process that owns it. */
export const OWNER_VAR = "HARNESS2_OWNER_PID";

/**
 * Sends `signal` to every process (and its process group) whose environment says `ownerPid`
 * started it, as a reaper does after its owner died, or as a run does that takes over the lock of
 * a process that is gone (docs/differences.md X16). Returns how many processes it signalled.
 * Reads /proc; elsewhere it finds nothing.
 */
export function killOwnedBy(ownerPid: number, signal: NodeJS.Signals): number {
  const marker = `${OWNER_VAR}=${ownerPid}`;
  const marked = (pid: string): boolean => {
    try {
      return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(marker);
    } catch {
      return false; // gone, or not ours to read
    }
  };
  const groupOf = (pid: string): number => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
    } catch {
      return 0;
    }
  };
  let names: string[] = [];
  try {
    names = readdirSync("/proc");
  } catch {
    return 0;
  }
  const ownGroup = groupOf(String(process.pid));
  let hit = 0;
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid || !marked(name)) continue;
    const group = groupOf(name);
    // A whole group only when its leader is marked too (harness2 starts each child as the leader
    // of its own group): never a group the marked process merely joined, and never our own.
    const targets =
      group > 1 && group !== ownGroup && marked(String(group))
        ? [-group, Number(name)]
        : [Number(name)];
    for (const target of targets) {
      try {
        process.kill(target, signal);
      } catch {
        // gone already
      }
    }
    hit++;
  }
  return hit;
}

let file: string | null = null;
let failed = false;

/** Starts the reaper (once per process); call before the first child is spawned. */
export function startReaper(): string | null {
  if (file !== null || failed) return file;
  const path = join(tmpdir(), `harness2-reaper-${process.pid}.groups`);
  try {
    writeFileSync(path, "");
    const main = join(import.meta.dir, "reaper-main.ts");
    const child = Bun.spawn([process.execPath, main, String(process.pid), path], {
      stdio: ["ignore", "ignore", "ignore"],
      detached: true,
      env: { PATH: process.env.PATH ?? "" },
    });
    child.unref(); // the helper never keeps this process alive
    // A normal exit removes the list; the reaper then finds nothing to do and leaves.
    process.once("exit", () => rmSync(path, { force: true }));
  } catch {
    failed = true; // without a reaper the exit hooks still cover every ordinary ending
    return null;
  }
  file = path;
  return file;
}

let listPending = false;

/**
 * Hands the reaper this process's live process groups (the spawn module's own set, after each
 * change): the ones it ends if this process dies before they do. The file is written once per
 * turn of the event loop, however many children started or ended in it: a child not yet listed
 * is still found by the owner mark in its environment.
 */
export function listForReaper(groups: ReadonlySet<number>): void {
  if (listPending || startReaper() === null) return;
  listPending = true;
  setImmediate(() => {
    listPending = false;
    if (file === null) return;
    try {
      writeFileSync(file, [...groups].join("\n"));
    } catch {
      // A full temp dir loses only this safety net, never the child.
    }
  });
}
