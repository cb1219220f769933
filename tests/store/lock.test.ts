// Sweep lock: refusal naming the holder, all-or-nothing namespaces, stale takeover across processes.
import type { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { openStore } from "../../store/db.ts";
import { acquireSweepLock, liveSweepIds, readLocks, SweepLockedError } from "../../store/lock.ts";
import { tempDir } from "./samples.ts";
import { spawnChild } from "./spawn-child.ts";

let dir: string;
let cleanup: () => void;
let dbPath: string;
let db: Database;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  dbPath = join(dir, "harness2.db");
  db = openStore(dbPath);
});
afterEach(() => {
  db.close();
  cleanup();
});

/** The pid of a process that has already exited. */
async function deadPid(): Promise<number> {
  const p = Bun.spawn([process.execPath, "-e", "0"]);
  await p.exited;
  return p.pid;
}

describe("sweep lock", () => {
  test("a second sweep on a held namespace is refused, naming the holder", () => {
    const held = acquireSweepLock(db, { namespaces: ["lab-oc-agg2"], sweep: "swp_first" });
    let err: unknown;
    try {
      acquireSweepLock(db, { namespaces: ["lab-oc-agg2"], sweep: "swp_second" });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SweepLockedError);
    const locked = err as SweepLockedError;
    expect(locked.holder.sweepId).toBe("swp_first");
    expect(locked.holder.pid).toBe(process.pid);
    expect(locked.message).toContain("swp_first");
    expect(locked.message).toContain(`pid ${process.pid}`);
    expect(locked.message).toContain("lab-oc-agg2");
    held.release();
    const next = acquireSweepLock(db, { namespaces: ["lab-oc-agg2"], sweep: "swp_second" });
    expect(readLocks(db).map((r) => r.sweepId)).toEqual(["swp_second"]);
    next.release();
    expect(readLocks(db)).toEqual([]);
  });

  test("locking is all or nothing across namespaces", () => {
    const held = acquireSweepLock(db, { namespaces: ["b"], sweep: "swp_first" });
    expect(() => acquireSweepLock(db, { namespaces: ["a", "b"], sweep: "swp_second" })).toThrow(
      SweepLockedError,
    );
    expect(readLocks(db).map((r) => r.namespace)).toEqual(["b"]);
    held.release();
  });

  test("other namespaces are free", () => {
    const a = acquireSweepLock(db, { namespaces: ["lab-oc-agg1"], sweep: "swp_a" });
    const b = acquireSweepLock(db, { namespaces: ["lab-oc-agg2"], sweep: "swp_b" });
    expect(liveSweepIds(db)).toEqual(new Set(["swp_a", "swp_b"]));
    a.release();
    b.release();
  });

  test("a lock left by a dead process on this host is taken over", async () => {
    const pid = await deadPid();
    const now = Date.now();
    db.run("INSERT INTO locks VALUES ('ns', 'swp_dead', ?, ?, ?, ?)", [pid, hostname(), now, now]);
    expect(liveSweepIds(db).has("swp_dead")).toBe(false);
    const lock = acquireSweepLock(db, { namespaces: ["ns"], sweep: "swp_new" });
    expect(lock.tookOver.map((r) => [r.sweepId, r.pid])).toEqual([["swp_dead", pid]]);
    lock.release();
  });

  test("a lock from another host is stale only once its heartbeat is old", () => {
    const now = Date.now();
    db.run("INSERT INTO locks VALUES ('ns', 'swp_far', 1, 'elsewhere', ?, ?)", [now, now]);
    expect(() => acquireSweepLock(db, { namespaces: ["ns"], sweep: "swp_new" })).toThrow(
      /swp_far \(pid 1 on elsewhere/,
    );
    const later = () => now + 61_000;
    const lock = acquireSweepLock(db, { namespaces: ["ns"], sweep: "swp_new", now: later });
    expect(lock.tookOver[0]?.sweepId).toBe("swp_far");
    lock.release();
  });

  test("the heartbeat notices a takeover", () => {
    let lost = "";
    const lock = acquireSweepLock(db, {
      namespaces: ["ns"],
      sweep: "swp_slow",
      onLost: (ns) => {
        lost = ns;
      },
    });
    db.run("UPDATE locks SET sweep_id = 'swp_other' WHERE namespace = 'ns'");
    lock.heartbeat();
    expect(lost).toBe("ns");
    expect(lock.lost).toBe("ns");
    lock.release();
    expect(readLocks(db).map((r) => r.sweepId)).toEqual(["swp_other"]);
  });

  test("taking over a dead holder's lock ends what it left running on this host", async () => {
    const child = spawnChild(["lockrun", dbPath, "lab-oc-seq1", "swp_child"]);
    let survivor = 0;
    try {
      const line = await child.waitFor(/^locked /);
      survivor = Number(line.split(" ")[2]);
      expect(processAlive(survivor)).toBe(true);
      child.proc.kill("SIGKILL");
      await child.proc.exited;
      const lock = acquireSweepLock(db, { namespaces: ["lab-oc-seq1"], sweep: "swp_me" });
      expect(lock.tookOver.map((r) => r.sweepId)).toEqual(["swp_child"]);
      for (let i = 0; i < 300 && processAlive(survivor); i++) await Bun.sleep(10);
      expect(processAlive(survivor)).toBe(false);
      lock.release();
    } finally {
      child.proc.kill("SIGKILL");
      if (survivor > 0 && processAlive(survivor)) process.kill(survivor, "SIGKILL");
    }
  });

  test("across processes: refused while the holder lives, taken over after kill -9", async () => {
    const child = spawnChild(["lock", dbPath, "lab-oc-agg1", "swp_child"]);
    try {
      const line = await child.waitFor(/^locked /);
      const pid = Number(line.split(" ")[1]);
      expect(() => acquireSweepLock(db, { namespaces: ["lab-oc-agg1"], sweep: "swp_me" })).toThrow(
        new RegExp(`swp_child \\(pid ${pid} `),
      );
      child.proc.kill("SIGKILL");
      await child.proc.exited;
      const lock = acquireSweepLock(db, { namespaces: ["lab-oc-agg1"], sweep: "swp_me" });
      expect(lock.tookOver.map((r) => r.sweepId)).toEqual(["swp_child"]);
      lock.release();
    } finally {
      child.proc.kill("SIGKILL");
    }
  });
});

/** A live process (a zombie waiting for its parent counts as gone). */
function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/\) [ZX] /.test(stat);
  } catch {
    return false;
  }
}
